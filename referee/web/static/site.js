/* Site pages: the match list filter, and (live site only) refreshing the
 * [data-live] parts of the page from its own server without a reload. */
(function () {
  "use strict";
  function applyFilter() {
    var sel = document.getElementById("bot-filter");
    if (!sel) return;
    var bot = sel.value;
    var shown = 0;
    document.querySelectorAll("tr[data-bots]").forEach(function (tr) {
      var ok = !bot || JSON.parse(tr.getAttribute("data-bots")).indexOf(bot) >= 0;
      tr.hidden = !ok;
      if (ok) shown++;
    });
    var c = document.getElementById("filter-count");
    if (c) c.textContent = shown + " matches";
  }
  document.addEventListener("change", function (e) { if (e.target.id === "bot-filter") applyFilter(); });
  applyFilter();

  var ms = parseInt(document.body.getAttribute("data-live") || "0", 10);
  if (!ms) return;
  setInterval(function () {
    fetch(location.href, { cache: "no-store" }).then(function (r) { return r.ok ? r.text() : null; }).then(function (html) {
      if (!html) return;
      var doc = new DOMParser().parseFromString(html, "text/html");
      doc.querySelectorAll("[data-live-part]").forEach(function (fresh) {
        var old = document.getElementById(fresh.id);
        if (old && old.innerHTML !== fresh.innerHTML) old.innerHTML = fresh.innerHTML;
      });
      applyFilter();
    }).catch(function () {});
  }, ms);
})();
