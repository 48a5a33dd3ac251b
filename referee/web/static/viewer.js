/* Replay viewer: draws one step of a match from the page's replay data
 * (the table itself: cardtable.js). The data (#replay-data) holds step 0 whole
 * and each later step as the keys that changed; see referee/web/replay.py. No
 * network request unless the page watches a live match (data-poll), then only
 * to its own server. */
(function () {
  "use strict";
  var T = window.CardTable;
  var root = document.getElementById("replay");
  if (!root) return;
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var states = [];
  var k = 0;
  var el = T.el;

  function build(frames) {
    var out = [], cur = {};
    frames.forEach(function (f) {
      var next = {};
      Object.keys(cur).forEach(function (key) { next[key] = cur[key]; });
      Object.keys(f).forEach(function (key) {
        if (f[key] === null) delete next[key]; else next[key] = f[key];
      });
      out.push(next);
      cur = next;
    });
    return out;
  }

  function drawControls() {
    var n = states.length - 1;
    document.getElementById("stepno").textContent = "step " + k + " of " + n;
    var ms = states[k].ms;  // the time the step's decision took, where this view sees it
    var took = document.getElementById("took");
    took.textContent = ms === undefined ? "" : "decided in " + (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + " ms";
    took.hidden = ms === undefined;
    var slider = document.getElementById("slider");
    slider.max = n;
    slider.value = k;
    var sel = document.getElementById("jump");
    if (sel.options.length !== data.rounds.length) {
      sel.innerHTML = "";
      data.rounds.forEach(function (r) {
        var o = el("option", "", r[0] || "start");
        o.value = r[1];
        sel.appendChild(o);
      });
    }
    var cur = 0;
    data.rounds.forEach(function (r, i) { if (r[1] <= k) cur = i; });
    sel.selectedIndex = cur;
    document.querySelectorAll("a.keep-step").forEach(function (a) {
      a.href = a.getAttribute("href").split("#")[0] + "#step=" + k;
    });
  }

  function show(i) {
    k = Math.max(0, Math.min(states.length - 1, i));
    var st = states[k];
    T.drawTable(data, st);
    T.drawSide(st);
    drawControls();
    root.setAttribute("data-step", k);
    if (history.replaceState) history.replaceState(null, "", "#step=" + k);
  }

  function roundStart(dir) {
    var starts = data.rounds.map(function (r) { return r[1]; });
    if (dir > 0) { for (var i = 0; i < starts.length; i++) if (starts[i] > k) return starts[i]; return states.length - 1; }
    for (var j = starts.length - 1; j >= 0; j--) if (starts[j] < k) return starts[j];
    return 0;
  }

  // autoplay: SPEED_BASE steps a second times the chosen speed, stopping at the last step
  var SPEED_BASE = 2, timer = null;
  var playBtn = document.getElementById("play"), speed = document.getElementById("speed");
  function drawPlaying() {
    playBtn.textContent = timer ? "\u2016 pause" : "\u25B7 play";
    root.setAttribute("data-playing", timer ? "true" : "false");
  }
  function pause() { if (timer) { clearInterval(timer); timer = null; } drawPlaying(); }
  function play() {
    pause();
    if (k >= states.length - 1) show(0);
    timer = setInterval(function () {
      if (k >= states.length - 1) { pause(); return; }
      show(k + 1);
      if (k >= states.length - 1) pause();
    }, 1000 / (SPEED_BASE * parseFloat(speed.value)));
    drawPlaying();
  }
  function toggle() { if (timer) pause(); else play(); }
  playBtn.onclick = toggle;
  speed.onchange = function () { if (timer) { clearInterval(timer); timer = null; play(); } };
  document.getElementById("faults").addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("a[data-step]") : null;
    if (!a) return;
    e.preventDefault();
    pause();
    show(parseInt(a.getAttribute("data-step"), 10));
  });

  document.getElementById("first").onclick = function () { show(0); };
  document.getElementById("prev").onclick = function () { show(k - 1); };
  document.getElementById("next").onclick = function () { show(k + 1); };
  document.getElementById("last").onclick = function () { show(states.length - 1); };
  document.getElementById("slider").oninput = function (e) { show(parseInt(e.target.value, 10)); };
  document.getElementById("jump").onchange = function (e) { show(parseInt(e.target.value, 10)); };
  document.addEventListener("keydown", function (e) {
    // the slider and the round menu handle their own keys (and report through their own events)
    if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT")) return;
    var to = null;
    if (e.key === "ArrowRight") to = k + 1;
    else if (e.key === "ArrowLeft") to = k - 1;
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = states.length - 1;
    else if (e.key === "PageDown") to = roundStart(1);
    else if (e.key === "PageUp") to = roundStart(-1);
    else if (e.key === " " && !(e.target && e.target.tagName === "BUTTON")) { e.preventDefault(); toggle(); return; }
    if (to !== null) { e.preventDefault(); show(to); }
  });

  states = build(data.frames);
  var m = /step=(\d+)/.exec(location.hash);
  show(m ? parseInt(m[1], 10) : (data.complete ? 0 : states.length - 1));  // a live match: follow its end
  drawPlaying();

  var poll = root.getAttribute("data-poll");
  if (poll && !data.complete) {
    var poller = setInterval(function () {
      fetch(poll, { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (d) {
        if (!d) return;
        var atEnd = k === states.length - 1;
        data = d;
        states = build(d.frames);
        show(atEnd ? states.length - 1 : k);
        if (d.complete) {
          clearInterval(poller);
          var done = document.getElementById("live-done");
          if (done) done.hidden = false;
          var live = document.getElementById("live-note");  // "match in progress": no longer so
          if (live) live.hidden = true;
        }
      }).catch(function () {});
    }, parseInt(root.getAttribute("data-poll-ms") || "1500", 10));
  }
})();
