// @ts-check
// The blogger's one script: <script type="module" src="https://…/widget.js"></script>
// then <will-it-fit model="zai-org/GLM-4.5-Air" hardware="nvidia-rtx-4090" quant="Q4_K_M"
// context="8192" lang="es">fallback text for readers without JavaScript</will-it-fit>.
// Defines no globals besides the custom element name.
import { WillItFitElement } from './widget-element.js';

if (!customElements.get('will-it-fit')) customElements.define('will-it-fit', WillItFitElement);
