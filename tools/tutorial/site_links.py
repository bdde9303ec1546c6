"""Check that every link of a built site leads somewhere: `make check` runs it on the docs.

For each HTML page it follows href, src and data (links, images, figures, scripts,
style sheets, image maps) and, where a link names an anchor (page.html#anchor), checks
that the target page has that id. It also follows the page names in the navigation
tree's and the search index's scripts, the url(...) of style sheets, and the links
inside SVG graphs. Links to other sites (http:, mailto:, ...) are not followed.

Usage: python3 -m tools.tutorial site-links SITE_DIR...   (exit status 1 if any link is broken)
"""
import html.parser
import pathlib
import re
import sys
import urllib.parse

# A quoted page or asset name inside a script: "chapter1.html#autotoc_md3", '../x.html'.
SCRIPT_LINK = re.compile(r"""["']([\w./-]+\.(?:html|svg|png|js|css)(?:#[\w.-]+)?)["']""")
CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)["']?\s*\)""")
LINK_ATTRIBUTES = {"href", "src", "data", "xlink:href"}
# Doxygen's own program scripts build paths at run time, so a quoted name in them is not
# a link; menu.js even names search/mag.svg, which only server-side search uses. The
# scripts that hold the site's data (navigation tree, menus, search index) are checked.
PROGRAM_SCRIPTS = {"jquery.js", "menu.js", "navtree.js", "resize.js", "dynsections.js", "search.js", "cookie.js"}


class PageParser(html.parser.HTMLParser):
    """Collects the links of one page and the anchors it defines."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.anchors = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.anchors.add(value)
            elif name in LINK_ATTRIBUTES:
                self.links.append(value)

    handle_startendtag = handle_starttag


def is_external(link):
    return bool(urllib.parse.urlsplit(link).scheme) or link.startswith("//")


class Site:
    def __init__(self, root):
        self.root = root.resolve()
        self.anchor_cache = {}

    def anchors_of(self, page):
        if page not in self.anchor_cache:
            parser = PageParser()
            parser.feed(page.read_text(encoding="utf-8", errors="replace"))
            self.anchor_cache[page] = parser.anchors
        return self.anchor_cache[page]

    def links_of(self, path):
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix in (".html", ".svg"):
            parser = PageParser()
            parser.feed(text)
            self.anchor_cache.setdefault(path, parser.anchors)
            return parser.links
        if path.suffix == ".js":
            return [] if path.name in PROGRAM_SCRIPTS else SCRIPT_LINK.findall(text)
        if path.suffix == ".css":
            return [link for link in CSS_URL.findall(text) if not link.startswith("data:")]
        return []

    def problem(self, source, link):
        """Why `link` in file `source` is broken, or None when it is fine."""
        if not link or is_external(link) or link.startswith("javascript:"):
            return None
        parts = urllib.parse.urlsplit(link)
        target = source if not parts.path else (source.parent / urllib.parse.unquote(parts.path)).resolve()
        if not target.is_relative_to(self.root):
            return "leads outside the site"
        if not target.is_file():
            return "no such file"
        if parts.fragment and target.suffix == ".html" and parts.fragment not in self.anchors_of(target):
            return f"{target.relative_to(self.root)} has no anchor '{parts.fragment}'"
        return None


def check(root):
    site = Site(root)
    files = sorted(p for p in site.root.rglob("*") if p.is_file() and p.suffix in (".html", ".svg", ".js", ".css"))
    broken = []
    links = 0
    for path in files:
        for link in site.links_of(path):
            links += 1
            why = site.problem(path, link)
            if why:
                broken.append(f"{path.relative_to(site.root)}: {link}: {why}")
    return files, links, broken


def check_sites(sites):
    status = 0
    for argument in sites:
        root = pathlib.Path(argument)
        if not (root / "index.html").is_file():
            print(f"{root}: not a built site (no index.html)")
            status = 1
            continue
        files, links, broken = check(root)
        if broken:
            print(f"{root}: {len(broken)} broken links of {links}:")
            for line in broken[:40]:
                print(f"  {line}")
            if len(broken) > 40:
                print(f"  ... and {len(broken) - 40} more")
            status = 1
        else:
            print(f"{root}: all {links} links of {len(files)} files lead somewhere")
    return status

