// Types of the uPlot build that scripts/assemble.mjs writes beside this file in dist/vendor/
// (uPlot.esm.js, from the `uplot` npm package): the package's own declarations.
import uPlot from 'uplot';
export default uPlot;
