// gridprint token page: progressive enhancement only. The forms work without this script; it adds a
// "Copy" button to a new token or API key and moves keyboard focus to the outcome message after a form post.
'use strict';
document.addEventListener('DOMContentLoaded', function () {
  var message = document.getElementById('message');
  var field = document.getElementById('secret');
  if (message && !field) {
    message.focus();
  }
  if (!field) {
    return;
  }
  var button = document.getElementById('copy');
  var status = document.getElementById('copy-status');
  field.addEventListener('focus', function () { field.select(); });
  if (!button) {
    return;
  }
  button.hidden = false;
  button.addEventListener('click', function () {
    var done = function () { status.textContent = 'Copied to the clipboard.'; };
    var manual = function () {
      field.focus();
      field.select();
      status.textContent = 'Could not copy automatically: it is selected, press Ctrl+C (or Command+C) to copy it.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(field.value).then(done, manual);
    } else {
      manual();
    }
  });
  button.focus();
});
