// @ts-check
// Forms that hold typed text (form[data-guard]: the post essay, its details, a new post): leaving the page
// with changes not yet sent asks first (beforeunload), so a click on a link cannot throw an essay away. The
// form being sent is not counted, the others are. A form the server shows again after a refusal holds
// unsaved text from the start (data-guard="unsaved").

/** @param {HTMLFormElement} form */
const snapshot = (form) => JSON.stringify([...new FormData(form).entries()].map(([k, v]) => [k, typeof v === 'string' ? v : v.name]));

const forms = /** @type {HTMLFormElement[]} */ ([...document.querySelectorAll('form[data-guard]')]);
const saved = new Map(forms.map((f) => [f, f.dataset.guard === 'unsaved' ? null : snapshot(f)]));
/** @type {EventTarget | null} */
let sending = null;

// Capture phase: the submit event of a form (or of a button with form=… outside it) names the form sent.
document.addEventListener('submit', (e) => {
  sending = e.target;
}, true);

window.addEventListener('beforeunload', (e) => {
  const unsaved = forms.some((f) => f !== sending && snapshot(f) !== saved.get(f));
  sending = null;
  if (!unsaved) return;
  e.preventDefault();
  // Older browsers show the prompt only when returnValue is set.
  e.returnValue = '';
});
