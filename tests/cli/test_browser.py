"""End to end in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by Selenium; never a browser download) plays a short game on the
``python -m envs play`` page — Start, decisions, a reaction prompt in the middle of the agent's
charge, a stale and an illegal action refused on the page, the end and the saved replay — and
steps through the viewer page of that replay.

Skipped (one line) only when no Chromium is installed; ``.ci/run`` installs it. Set
``RIPOSTE_SCREENSHOTS=DIR`` to save the pictures of both pages (the README's are made so).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no Chromium: apt-get install chromium chromium-driver (.ci/run does)")

WAIT = 90  # seconds; the test machine is shared and slow


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="riposte-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                f"--user-data-dir={profile}", "--window-size=1280,900"):
        opts.add_argument(arg)
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must not download anything
    d = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    d.set_page_load_timeout(WAIT)
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


def shot(driver, name: str) -> None:
    where = os.environ.get("RIPOSTE_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(where) / name))


def _serve(tmp_path, advisor=None):
    from envs import load_game
    from envs.cli.play import PlaySession, make_server

    from .scripted import CHARGER, Scripted

    g = load_game("acw_regimental", "example_a_closing_volley", {"pips_fixed": True, "turns": 1})
    if advisor is not None:
        advisor = advisor(g)
    ps = PlaySession(g, Scripted(g, CHARGER), "scripted", 1, 7, tmp_path / "played.toml",
                     "example_a_closing_volley", advisor=advisor)
    srv = make_server(ps, 0, step_ms=40)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.port}/", ps
    srv.shutdown()
    srv.server_close()
    srv._riposte_socket.close()
    t.join(timeout=10)


@pytest.fixture
def server(tmp_path):
    yield from _serve(tmp_path)


@pytest.fixture
def hint_server(tmp_path):
    from agents.search import NetworkEvaluator, SearchAgent, SearchConfig

    from .test_play_hint import _prior

    yield from _serve(tmp_path, lambda g: SearchAgent(
        g, NetworkEvaluator(g, _prior(g, {"react:decline": 6.0})), SearchConfig(simulations=4),
        seed=0, name="search:test"))


@pytest.mark.slow
def test_play_a_short_game_then_view_it(driver, server, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, ps = server
    wait = WebDriverWait(driver, WAIT)
    driver.get(url)
    assert "example_a_closing_volley" in driver.find_element(By.TAG_NAME, "h1").text
    assert "Press Start" in driver.find_element(By.ID, "status").text
    assert driver.find_elements(By.CSS_SELECTOR, "#board svg polygon.unit")
    driver.find_element(By.ID, "start").click()

    def buttons():
        return driver.find_elements(By.CSS_SELECTOR, "#actions button.action")

    # the agent activates and charges; the page shows its moves and then asks us to react
    wait.until(lambda d: any(b.text == "Fire a Closing Volley at 14th Brooklyn"
                             for b in buttons()))
    assert driver.find_element(By.ID, "window-badge").is_displayed()
    recent = driver.find_element(By.ID, "recent").text
    assert "scripted (Union): Activate 14th Brooklyn" in recent
    assert "charges 5th Virginia" in recent
    assert driver.find_elements(By.CSS_SELECTOR, "#board svg polyline.trigger")  # 4.0" mark
    masked = [b for b in buttons() if not b.is_enabled()]
    cc = next(b for b in masked if b.get_attribute("data-label") == "react:counter_charge_2")
    assert "masked" in cc.get_attribute("title") and "RULE-04-6.4" in cc.get_attribute("title")
    shot(driver, "play.png")

    # a stale click (the page of an older step) is refused on the page; the game goes on
    volley = next(b for b in buttons() if b.text.startswith("Fire a Closing Volley"))
    seq = int(volley.get_attribute("data-seq"))
    driver.execute_script("arguments[0].dataset.seq = arguments[1]", volley, seq - 1)
    volley.click()
    wait.until(lambda d: "stale action" in d.find_element(By.ID, "error").text)
    # an illegal one (a masked button forced on) likewise
    cc = next(b for b in buttons() if b.get_attribute("data-label") == "react:counter_charge_2")
    driver.execute_script("arguments[0].disabled = false", cc)
    cc.click()
    wait.until(lambda d: "illegal action 'react:counter_charge_2'"
               in d.find_element(By.ID, "error").text)
    assert ps.state.decision_name() == "reaction"  # nothing was applied

    volley = next(b for b in buttons() if b.text.startswith("Fire a Closing Volley"))
    volley.click()
    # the dice of the volley appear one by one
    wait.until(lambda d: "die: d6=" in d.find_element(By.ID, "recent").text)
    assert not driver.find_element(By.ID, "error").is_displayed()
    assert "Closing Volley at 14th Brooklyn" in driver.find_element(By.ID, "log").text

    prefer = ["end_phase", "hold_fire", "reserve:0", "react:decline", "end_activation",
              "rally:roll", "melee:hold"]
    for _ in range(60):
        wait.until(lambda d: d.find_element(By.ID, "result").text
                   or any(b.is_enabled() for b in buttons()))
        if driver.find_element(By.ID, "result").text:
            break
        live = [b for b in buttons() if b.is_enabled()]
        pick = next((b for lab in prefer for b in live if b.get_attribute("data-label") == lab),
                    live[0])
        before = driver.find_element(By.ID, "recent").text
        pick.click()
        wait.until(lambda d: d.find_element(By.ID, "recent").text != before)
    result = driver.find_element(By.ID, "result").text
    assert result.split(" (")[0] in ("You win", "You lose", "Draw")
    saved = tmp_path / "played.toml"
    wait.until(lambda d: f"Replay saved to {saved}" in d.find_element(By.ID, "saved").text)

    # the viewer of that replay: step, jump to the reaction, read the log
    from envs.cli.view import main as view_main

    out = tmp_path / "played.html"
    assert view_main(str(saved), str(out)) == 0
    driver.get(out.as_uri())
    label = driver.find_element(By.ID, "step-label")
    n = int(label.text.split("/")[1])
    assert label.text == f"step 0 / {n}" and n > 10
    driver.find_element(By.ID, "next").click()
    assert driver.find_element(By.ID, "step-label").text == f"step 1 / {n}"
    assert not driver.find_element(By.ID, "window-badge").is_displayed()
    driver.find_element(By.ID, "next-reaction").click()
    assert driver.find_element(By.ID, "window-badge").is_displayed()
    assert "reaction" in driver.find_element(By.ID, "board").get_attribute("class")
    decision = driver.find_element(By.ID, "decision").text
    assert "Confederate decides (reaction)" in decision
    assert "Fire a Closing Volley at 14th Brooklyn" in decision
    legal = driver.find_element(By.ID, "legal").text
    assert "react:closing_volley" in legal and "react:decline" in legal
    shot(driver, "viewer.png")
    k = int(driver.find_element(By.ID, "step-label").text.split()[1])
    driver.find_element(By.ID, "next").click()
    log = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#log div.new")]
    assert any("fires a Closing Volley at 14th Brooklyn" in t and "RULE-04-2.1" in t
               for t in log), log
    slider = driver.find_element(By.ID, "slider")
    assert int(slider.get_attribute("value")) == k + 1
    driver.find_element(By.ID, "last").click()
    assert driver.find_element(By.ID, "step-label").text == f"step {n} / {n}"
    assert driver.find_element(By.ID, "result").text.startswith("Game over: returns")


@pytest.mark.slow
def test_what_would_the_ai_do(driver, hint_server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, ps = hint_server
    wait = WebDriverWait(driver, WAIT)
    driver.get(url)
    assert not driver.find_element(By.ID, "hint").is_displayed()  # not before our decision
    driver.find_element(By.ID, "start").click()
    wait.until(lambda d: d.find_element(By.ID, "hint").is_displayed())
    assert ps.state.decision_name() == "reaction"
    driver.find_element(By.ID, "hint").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hint-out table.hint tr[data-label]"))
    rows = driver.find_elements(By.CSS_SELECTOR, "#hint-out table.hint tr[data-label]")
    assert {r.get_attribute("data-label") for r in rows} == set(ps.state.legal_labels())
    chosen = driver.find_elements(By.CSS_SELECTOR, "#hint-out tr.chosen")
    assert len(chosen) == 1 and chosen[0].get_attribute("data-label") == "react:decline"
    assert "search:test would choose 5th Virginia: no reaction" in \
        driver.find_element(By.ID, "hint-out").text
    assert ps.state.decision_name() == "reaction"  # asking applied nothing
