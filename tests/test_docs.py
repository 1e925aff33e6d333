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
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10 (the row of the tests that need no TensorFlow)
    import tomli as tomllib

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


# -- every file, test and command the README and the site name exists -------------------------

# Files the documentation names that are the user's, not this repository's.
USERS_FILES = {".pre-commit-config.yaml", "pyproject.toml",
               "tfcompat_threads/codemod/rules/my_rule.py"}  # Development: how to add a rule
TOP = ("tests/", "tfcompat_threads/", "examples/", "scripts/", "bench/", "fixtures/", "docs/", ".ci/")


def documentation() -> dict[str, str]:
    """The README and every page's source, rule pages as the hook renders them."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import hooks
    finally:
        sys.path.remove(str(ROOT / "docs"))
    pages = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    pages.update({p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md")})
    pages.update({f"rules/{rule.name}": hooks.rule_markdown(rule) for rule in RULES.values()})
    return pages


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    return [name for name in listed if (ROOT / name).exists()]


def test_every_file_test_and_command_the_documentation_names_exists():
    files = tracked_files()
    folders = {str(Path(name).parent) + "/" for name in files} | {f + "/" for f in TOP}
    for name in list(folders):
        while (name := str(Path(name).parent) + "/") not in ("./", "/"):
            folders.add(name)
    tests = set()
    for name in files:
        if name.startswith("tests/") and name.endswith(".py"):
            tests |= set(re.findall(r"^\s*def (test_\w+)", (ROOT / name).read_text(encoding="utf-8"), re.M))
    from tfcompat_threads.cli import main

    commands = set(main.commands)
    missing, named = [], 0
    for page, text in documentation().items():
        spans = re.findall(r"`([^`\n]+)`", text)
        for span in spans:
            for token in span.split():
                token = token.strip("(),;:'\"")
                path, _, test = token.partition("::")
                if path.startswith(TOP) or re.fullmatch(r"[\w.-]+\.(md|toml|yml|yaml)", path):
                    named += 1
                    if not (path in files or path.rstrip("/") + "/" in folders or path in USERS_FILES):
                        missing.append(f"{page}: {path}")
                    if test and not re.search(rf"\b{re.escape(test.split('[')[0])}\b",
                                              (ROOT / path).read_text(encoding="utf-8")):
                        missing.append(f"{page}: {token}")
                elif re.fullmatch(r"test_\w+\.py", path):
                    named += 1
                    if not any(name.endswith("/" + path) for name in files):
                        missing.append(f"{page}: {path}")
                elif re.fullmatch(r"test_\w+(\[.*\])?", token):
                    named += 1
                    if re.sub(r"\[.*", "", token) not in tests:
                        missing.append(f"{page}: {token}")
        for command in re.findall(r"tfcompat-threads (\w[\w-]*)", text):
            named += 1
            if True:
                if command not in commands:
                    missing.append(f"{page}: tfcompat-threads {command}")
    assert named > 150
    assert sorted(set(missing)) == [], "\n".join(sorted(set(missing)))


def test_the_readme_s_links_into_the_site_are_pages_of_the_built_site(site):
    address = PROJECT["urls"]["Documentation"]
    links = re.findall(r"\]\((https://[^)]+)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(links) >= 8
    for link in links:
        assert link.startswith(address), link
        path, fragment = target_page(site, site / "index.html", link[len(address):])
        assert path.is_file(), link
        assert not fragment or fragment in parsed(path).ids, link
