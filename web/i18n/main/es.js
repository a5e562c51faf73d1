// @ts-check
export default {
};
