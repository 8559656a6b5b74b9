// An invitation or reset link carries its token in the fragment (#token=…), which no request
// sends: the set-password form takes it from there, and the address bar forgets it.
(function () {
  var found = /(?:^|[#&])token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  var field = document.getElementById('link-token');
  if (found && field) {
    field.value = found[1];
    window.history.replaceState(null, '', window.location.pathname);
  }
})();
