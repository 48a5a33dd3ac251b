/* Site pages: the match list's bot menu (live: the server filters, ?bot=NAME;
 * report: it opens the bot's page), and (live site only) refreshing the
 * [data-live-part] parts of the page from its own server without a reload. */
(function () {
  "use strict";
  document.addEventListener("change", function (e) {
    var sel = e.target;
    if (sel.id !== "bot-filter") return;
    if (sel.hasAttribute("data-submit") && sel.form) sel.form.submit();
    else if (sel.hasAttribute("data-go") && sel.value) location.href = sel.value;
  });

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
    }).catch(function () {});
  }, ms);
})();
