/* Full-text search of the lessons and guides, for the page "Search the lessons".
 *
 * Doxygen's own search box finds the API's names and the pages' titles, not the text of a
 * lesson. This one searches the text: lesson_index.js (written by tools/tutorial/docs.py)
 * holds every section of every lesson and guide as plain text. Every word of the query must
 * occur in a section (case-insensitive, as a prefix of a word). The query may come from the
 * page's address, search-lessons.html?q=two+barriers, so a link or a test can run one. */
(function () {
    "use strict";
    var input = document.getElementById("lesson-search");
    var list = document.getElementById("lesson-search-results");
    var summary = document.getElementById("lesson-search-summary");
    if (!input || !list || !summary || typeof LESSON_INDEX === "undefined") return;

    function escapeRegExp(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

    function snippet(text, words) {
        var lower = text.toLowerCase(), at = lower.indexOf(words[0]);
        var start = Math.max(0, at - 60), end = Math.min(text.length, at + 160);
        // Whole words only at both ends of the passage.
        if (start > 0) start = text.indexOf(" ", start) + 1;
        if (end < text.length) end = Math.max(text.lastIndexOf(" ", end), at + words[0].length);
        return (start > 0 ? "… " : "") + text.slice(start, end) + (end < text.length ? " …" : "");
    }

    function show(query) {
        var words = query.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
        list.innerHTML = "";
        if (words.length === 0) { summary.textContent = ""; return; }
        var patterns = words.map(function (w) { return new RegExp("(^|[^a-z0-9_])" + escapeRegExp(w), "i"); });
        var hits = LESSON_INDEX.filter(function (s) {
            var haystack = s.page_title + " " + s.section + " " + s.text;
            return patterns.every(function (p) { return p.test(haystack); });
        });
        summary.textContent = hits.length === 0 ? "No section of a lesson or guide has all of: " + words.join(", ") + "."
            : hits.length + (hits.length === 1 ? " section matches." : " sections match.");
        hits.forEach(function (s) {
            var item = document.createElement("li");
            item.className = "lesson-search-hit";
            var link = document.createElement("a");
            link.href = s.page;
            link.textContent = s.page_title + (s.section ? " › " + s.section : "");
            var text = document.createElement("div");
            text.textContent = snippet(s.text, words);
            item.appendChild(link);
            item.appendChild(text);
            list.appendChild(item);
        });
    }

    input.addEventListener("input", function () { show(input.value); });
    var query = new URLSearchParams(window.location.search).get("q");
    if (query) { input.value = query; show(query); }
})();
