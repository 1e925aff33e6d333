"""The documentation site (mkdocs.yml, docs/): it builds with `mkdocs build
--strict`, every rule has a page generated from its module, every link of the
site leads to a page and anchor that exist, a rule page renders in a real
browser (headless Chromium), and the documentation address that JSON `url`
and SARIF `helpUri` carry is the package metadata's."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tfcompat_threads.codemod.rules import RULES
from tfcompat_threads.lint import formats
from tfcompat_threads.options import OPTIONS

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out


def text_of(markup: str) -> str:
    """The text of an HTML document, as a reader sees it (tags gone, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def rule_page(site: Path, code: str) -> Path:
    return site / "rules" / RULES[code].name / "index.html"


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_has_its_page_from_its_module(site, code):
    rule = RULES[code]
    page = text_of(rule_page(site, code).read_text(encoding="utf-8"))
    assert f"{rule.code} {rule.name}" in page
    for part in (rule.example, rule.use_instead, *(example.source for example in rule.invalid)):
        assert part.rstrip() in page, part
    bare = re.compile(r"[\s`]")  # code spans and line breaks are markup
    assert bare.sub("", rule.what) in bare.sub("", page)



def test_the_option_table_page_has_a_row_per_option(site):
    page = text_of((site / "options" / "index.html").read_text(encoding="utf-8"))
    assert [option.field for option in OPTIONS if option.field not in page] == []


def test_the_changelog_page_is_the_changelog(site):
    page = text_of((site / "changelog" / "index.html").read_text(encoding="utf-8"))
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert headings and [h for h in headings if h not in page] == []


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])


def parsed(page: Path) -> Links:
    parser = Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def target_page(site: Path, page: Path, link: str) -> tuple[Path, str]:
    parts = urlsplit(link)
    path = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
    if path.is_dir():
        path = path / "index.html"
    return path, parts.fragment


def test_every_link_of_the_site_leads_to_a_page_and_an_anchor_that_exist(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > len(RULES) + 10
    broken, checked = [], 0
    for page in pages:
        if page.name == "404.html":  # served at any depth, so its links are absolute by design
            continue
        for link in parsed(page).links:
            if re.match(r"[a-z]+:", link):  # https:, mailto:, data:
                continue
            path, fragment = target_page(site, page, link)
            checked += 1
            if not path.is_file():
                broken.append(f"{page.relative_to(site)}: {link}")
            elif fragment and path.suffix == ".html" and fragment not in parsed(path).ids:
                broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    assert checked > 100 and broken == []


def test_a_rule_page_shows_its_title_and_example_in_headless_chromium(site, tmp_path):
    chromium = shutil.which(os.environ.get("CHROMIUM", "chromium"))
    assert chromium, "no chromium: scripts/test installs Debian's package"
    rule = RULES["TFT001"]
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         rule_page(site, "TFT001").as_uri()],
        capture_output=True, text=True, timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    (title,) = re.findall(r"<h1[^>]*>(.*?)</h1>", dom, re.S)
    assert text_of(title).strip().rstrip("¶").strip() == f"{rule.code} {rule.name}"
    code_blocks = [text_of(block) for block in re.findall(r"<pre[^>]*>(.*?)</pre>", dom, re.S)]
    assert any(rule.example.rstrip() in block for block in code_blocks), code_blocks
    # the theme's script ran in the page (its bundle marks the document)
    assert "data-js-focus-visible" in dom


def test_json_url_and_sarif_help_uri_are_the_metadata_s_documentation_address(site, tmp_path):
    address = PROJECT["urls"]["Documentation"]
    assert address.startswith("https://") and address.endswith("/")
    mkdocs_yml = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(rf"^site_url: {re.escape(address)}$", mkdocs_yml, re.M), "mkdocs.yml site_url"
    assert formats.DOCS_FALLBACK == address, "the fallback is the same address"
    # the installed metadata says it (an editable install writes it too)
    assert formats.docs_address() == address
    source = tmp_path / "legacy.py"
    source.write_text("import tensorflow as tf\nconfig = tf.ConfigProto()\n")
    for output_format in ("json", "sarif"):
        done = subprocess.run([sys.executable, "-m", "tfcompat_threads", "check", "--no-cache",
                               "--output-format", output_format, str(source)], capture_output=True, text=True)
        document = json.loads(done.stdout)
        if output_format == "json":
            urls = [finding["url"] for finding in document]
        else:
            urls = [rule["helpUri"] for rule in document["runs"][0]["tool"]["driver"]["rules"]]
            assert len(urls) == len(RULES)
        assert urls
        for url in urls:
            assert url.startswith(address), url
            assert (site / url[len(address):] / "index.html").is_file(), url
