"""The report of the seed's example, opened in a real browser: Debian's headless Chromium driven by
Selenium through chromedriver, with JavaScript on and off. The graph, every step, the workbook's diff
and the figures must be there either way; the screenshot is kept as a test artifact
(PODIUM_TEST_ARTIFACTS, default: the test's temporary folder)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from podium.journal import SqliteStore
from podium.journal.report import gather, write_report
from tests.journal.recording import seed_run

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def browser(profile: Path, *, javascript: bool) -> webdriver.Chrome:
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("Chromium and chromedriver are needed: scripts/test installs the chromium and "
                    "chromium-driver packages")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1280,900",
                f"--user-data-dir={profile}"):
        options.add_argument(arg)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("PODIUM_TEST_ARTIFACTS") or tmp_path / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def seed_report(tmp_path: Path) -> Iterator[tuple[Path, int, int]]:
    import asyncio

    store = SqliteStore(tmp_path / "journal.db")
    workspace = tmp_path / "quarterly"
    result = asyncio.run(seed_run(store, workspace))
    assert result.status == "FINISH"
    report = gather(store, "seed")
    path = write_report(store, "seed", tmp_path / "seed.html")
    yield path, len(report.steps), len(report.subtasks)
    store.close()


@pytest.mark.parametrize("javascript", [True, False], ids=["js-on", "js-off"])
def test_the_seed_report_in_headless_chromium(seed_report: tuple[Path, int, int], tmp_path: Path,
                                             artifacts: Path, javascript: bool) -> None:
    path, steps, subtasks = seed_report
    assert steps == 6 and subtasks == 2
    html = path.read_text(encoding="utf-8")
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    driver = browser(tmp_path / f"profile-{javascript}", javascript=javascript)
    try:
        driver.get(path.as_uri())
        nodes = driver.find_elements(By.CSS_SELECTOR, "svg#subtask-graph g.node")
        assert [(n.get_attribute("data-subtask"), n.get_attribute("data-state")) for n in nodes] == \
            [("1", "FINISH"), ("2", "FINISH")]
        assert all(n.is_displayed() for n in nodes)
        assert len(driver.find_elements(By.CSS_SELECTOR, "svg#subtask-graph path.edge")) == 1
        cards = driver.find_elements(By.CSS_SELECTOR, "article.step")
        assert len(cards) == steps and all(c.is_displayed() for c in cards)
        assert [c.get_attribute("data-agent") for c in cards] == \
            ["host", "app-documents", "app-documents", "app-spreadsheets", "app-spreadsheets", "host"]
        assert len(driver.find_elements(By.CSS_SELECTOR, "svg#timeline rect.bar")) == steps
        body = driver.find_element(By.TAG_NAME, "body").text
        assert "Extract the table from report.docx" in body and "FINISH" in body
        assert "write_rows" in body and "add_chart" in body  # the tool calls of step 4
        diff = driver.find_element(By.CSS_SELECTOR, 'section.file[data-path="budget.xlsx"]').text
        assert "Budget!A1 = 'Quarter'" in diff and "Budget!C5 = 980" in diff
        assert "chart added: bar chart 'Revenue and costs per quarter'" in diff
        assert "tokens 5,100 in / 720 out" in body
        fold = driver.find_element(By.ID, "fold")
        assert fold.is_displayed() is javascript  # the script ran only with JavaScript on
        prompt = cards[0].find_element(By.TAG_NAME, "details")
        assert prompt.get_attribute("open") is None  # folded
        if javascript:
            driver.find_element(By.ID, "unfold-all").click()
            assert prompt.get_attribute("open") is not None
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.find_element(By.ID, "fold-all").click()
            driver.set_window_size(1280, min(int(height), 4000))
        shot = artifacts / f"report-seed-{'js' if javascript else 'nojs'}.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.quit()
    shutil.copy(path, artifacts / "report-seed.html")
