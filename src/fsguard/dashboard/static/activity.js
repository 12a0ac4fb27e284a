// Activity: new audit entries arrive as server-sent events, each a ready table row rendered (and escaped) by the
// server; they are put at the top of the table without a reload.
(function () {
  "use strict";
  var table = document.getElementById("feed");
  var live = document.getElementById("live");
  if (!table || !window.EventSource) { return; }
  var body = table.tBodies[0];
  var source = new EventSource(table.dataset.stream);
  source.onopen = function () { live.classList.add("on"); };
  source.onerror = function () { live.classList.remove("on"); };
  var shown = {};  // event ids already put in the table: a reconnect that repeats one adds no second row
  source.addEventListener("entry", function (event) {
    if (event.lastEventId) {
      if (shown[event.lastEventId]) { return; }
      shown[event.lastEventId] = true;
    }
    var holder = document.createElement("tbody");
    holder.innerHTML = event.data;
    var row = holder.firstElementChild;
    if (!row) { return; }
    row.classList.add("fresh");
    body.insertBefore(row, body.firstChild);
    var empty = document.getElementById("feed-empty");
    if (empty) { empty.remove(); }
    while (body.rows.length > 500) { body.deleteRow(body.rows.length - 1); }
  });
})();
