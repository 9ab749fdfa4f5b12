// @ts-check
// Copy buttons on account pages (the new API key): the clipboard API where the browser allows it,
// otherwise the text is selected for the person to copy.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const input = /** @type {HTMLInputElement | null} */ (document.getElementById(/** @type {HTMLElement} */ (button).dataset.copy ?? ''));
    const status = button.closest('.panel')?.querySelector('.copy-status');
    if (!input) return;
    let copied = false;
    try {
      await navigator.clipboard.writeText(input.value);
      copied = true;
    } catch {
      input.focus();
      input.select();
    }
    if (status) status.textContent = copied ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C (or ⌘C) to copy.';
  });
}
