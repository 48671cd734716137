"""Browser fixtures: the built web client served by a real server process, and real headless Chromium (Debian's
`chromium`) driven by Playwright. Screenshots go to tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, ServerProcess

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
CLIENT = ROOT / "client_web"
ARTIFACTS = ROOT / "tests" / "artifacts"

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (its driver ships in the wheel)")


def _sources_newer_than(target: Path) -> bool:
    stamp = target.stat().st_mtime
    for path in [*(CLIENT / "src").rglob("*"), CLIENT / "index.html", CLIENT / "package.json"]:
        if path.is_file() and path.stat().st_mtime > stamp:
            return True
    return False


@pytest.fixture(scope="session")
def client_dist() -> Path:
    """client_web/dist, built with Vite when missing or older than the sources."""
    index = CLIENT / "dist" / "index.html"
    if not index.exists() or _sources_newer_than(index):
        npx = shutil.which("npx")
        if npx is None:
            pytest.fail("the web client is not built and npx is missing (install Node.js and npm)")
        if not (CLIENT / "node_modules").is_dir():
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=CLIENT, check=True)
        subprocess.run([npx, "vite", "build"], cwd=CLIENT, check=True, capture_output=True)
    return CLIENT / "dist"


@pytest.fixture
def web_server(tmp_path: Path, client_dist: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path / "data", "--client-dir", str(client_dist)).start()
    yield proc
    proc.stop()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests last. Playwright's sync API keeps an event loop running in the main thread while it
    is open, which breaks every asyncio test collected after it; with the browser closed at the end of this
    package (below) and the package last, the two never overlap."""
    here = Path(__file__).parent
    items.sort(key=lambda item: here in Path(str(item.path)).parents)


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install -y chromium)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Marks a browser test whose body failed, so that `new_page` leaves a screenshot of each of its pages."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when == "call" and report.failed:
        item.stash[_FAILED] = True


@pytest.fixture
def new_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Pages in separate browser contexts (separate storage: separate people). When the test fails, each page is
    saved as tests/artifacts/failed-<test>-<n>.png before it closes: what each person saw at the failure."""
    contexts: list[Any] = []

    def make(lang: str = "en") -> Any:
        ctx = browser.new_context(viewport={"width": 1400, "height": 860}, locale="en-GB")
        ctx.add_init_script(f"try {{ localStorage.setItem('lang', '{lang}') }} catch (e) {{}}")
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        return page

    yield make
    failed = request.node.stash.get(_FAILED, False)
    for n, ctx in enumerate(contexts):
        if failed:
            for page in ctx.pages:
                with contextlib.suppress(Exception):  # a page that crashed has nothing to show
                    shot(page, f"failed-{request.node.name[:80]}-{n}")
        ctx.close()


def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def page_in(browser: Any, lang: str, size: tuple[int, int]) -> Any:
    """A page of its own context in the interface language `lang` at `size` (width, height); narrower than 500 px
    it is a phone: touch, mobile, twice the pixels."""
    small = size[0] < 500
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-GB",
                              has_touch=small, is_mobile=small, device_scale_factor=2 if small else 1)
    ctx.add_init_script(f"try {{ localStorage.setItem('lang', '{lang}') }} catch (e) {{}}")
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    return page
