// Postern web inbox: the live list, and the message page's frame sized to the message. Served from the binary; no framework, no request to anywhere else.
(function () {
  "use strict";
  var nav = document.getElementById("live");
  if (!nav || !window.EventSource || !window.fetch || !window.DOMParser) { return; }
  var events = nav.getAttribute("data-events");
  if (!events) { return; }
  var first = nav.getAttribute("data-first");
  var source = new EventSource(events + "?state=" + encodeURIComponent(nav.getAttribute("data-state") || ""));
  var busy = false, again = false, news = false;

  // The element that holds the list: #messages, or the scrolling wrapper around its table.
  function holder(root) {
    var list = root.getElementById("messages");
    var parent = list && list.parentNode;
    return parent && parent.classList && parent.classList.contains("table-wrap") ? parent : list;
  }

  function say(text) {
    var spoken = document.getElementById("live-news");
    if (spoken) { spoken.textContent = text; }
  }

  function offerReload(text) {
    var reload = document.getElementById("reload");
    if (!reload) { return; }
    reload.textContent = text;
    if (first) { reload.setAttribute("href", first); }
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var oldList = holder(document), newList = holder(fresh), newNav = fresh.getElementById("live");
    if (!oldList || !newList || !newNav) { throw new Error("not a list page"); }
    var focused = document.activeElement;
    var keep = focused && oldList.contains(focused) ? focused.getAttribute("href") : null;
    oldList.replaceWith(document.importNode(newList, true));
    // The live region stays the same element (screen readers follow it); its content is the new page's.
    while (nav.firstChild) { nav.removeChild(nav.firstChild); }
    Array.prototype.forEach.call(newNav.childNodes, function (node) {
      nav.appendChild(document.importNode(node, true));
    });
    nav.setAttribute("data-state", newNav.getAttribute("data-state") || "");
    // Focus that was on a row's link goes back to the same link in the new list.
    Array.prototype.some.call(holder(document).querySelectorAll("a[href]"), function (link) {
      if (keep === null || link.getAttribute("href") !== keep) { return false; }
      link.focus();
      return true;
    });
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    var arrived = news;
    news = false;
    fetch(window.location.href, { credentials: "same-origin", cache: "no-store", redirect: "manual" })
      .then(function (response) {
        if (!response.ok) { throw new Error("the list did not load"); }
        return response.text();
      })
      .then(function (html) {
        swap(html);
        if (arrived) { say("New mail."); }
      })
      .catch(function () {
        // Signed out, or the server is going away: the stream stops; the page says it may be out of date.
        source.close();
        offerReload("Changed: reload");
      })
      .then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }

  source.addEventListener("change", function (event) {
    var arrived = false;
    try { arrived = JSON.parse(event.data).arrived === true; } catch (ignored) { arrived = false; }
    if (first) {
      if (arrived) { offerReload("New mail: reload"); say("New mail."); }
      return;
    }
    news = news || arrived;
    refresh();
  });
  window.addEventListener("pagehide", function () { source.close(); });
}());

// The message page: its HTML frame made as tall as the message, once the part has loaded and whenever its size
// changes (an inline image arriving, the window resized), so the page scrolls and not a box inside it. The frame runs
// no script (sandboxed, and its own CSP); it keeps its origin only so that this script may read its height.
(function () {
  "use strict";
  var frame = document.getElementById("html-body");
  if (!frame) { return; }
  var watched = null;

  function fit() {
    var inner = null;
    try { inner = frame.contentDocument; } catch (ignored) { return; }
    if (!inner || !inner.documentElement || inner.URL === "about:blank") { return; }
    var root = inner.documentElement;
    // Measured in a frame one pixel tall: the part has no doctype (the sanitizer drops it), so it renders in quirks
    // mode, where the root and the body stretch to the frame and a short message would read as tall as the frame's
    // CSS minimum (issue 83 item 11). In one pixel, what the document's content needs is its scroll height, in
    // either mode, and a root that is as tall as its window (height: 100%) cannot make the frame grow each time.
    // The frame's height counts its borders (border-box): the content gets exactly the height measured.
    var borders = frame.offsetHeight - frame.clientHeight;
    var was = frame.offsetHeight;
    frame.style.minHeight = "0";
    frame.style.height = (borders + 1) + "px";
    var height = Math.ceil(Math.max(root.scrollHeight, inner.body ? inner.body.scrollHeight : 0));
    var wanted = height > 0 ? Math.min(height, 100000) + borders : was;
    frame.style.height = wanted + "px";
    if (window.ResizeObserver && watched !== root) {
      watched = root;
      new ResizeObserver(fit).observe(root);
    }
  }

  frame.addEventListener("load", fit);
  fit();
}());
