#!/usr/bin/env python3
"""Drives PackFS's web page (web/index.html, served from a mount) in headless Chromium.

usage: page_check.py URL SCREENSHOT.png --complete NAME --downloading NAME
                     [--packs DIR --add NAME=REGION.json] [--timeout SECONDS]

URL is the page (the web base, ending in /). The checks, each waited for with a deadline
(WebDriverWait), never a fixed sleep:
  - both packs are listed, the downloading one `active`, the complete one `complete`;
  - the complete pack is selected and drawn: the map goes idle with its coverage layer on it and
    features in the coverage source, with no `error` event;
  - the downloading pack's completed count rises while the page watches;
  - the database's figures are shown; the selected pack's files are linked;
  - with --packs and --add: a region file copied into DIR (the mount's packs/) makes a pack that
    joins the list, and removing it takes it off the list;
  - at a phone's width (390 px) nothing overflows sideways and the list sits under the map.
Then every request the browser made (its network log, workers included) must be under URL, and
the console must hold no error. SCREENSHOT gets the page at 1000x700 (SCREENSHOT-phone.png at
390x844), taken once the map is idle.

Chromium is Debian's, driven by selenium, WebGL through SwiftShader; every host name but
127.0.0.1 fails to resolve (browser_check.py's browser). Prints one JSON line with what it saw;
exits 0 when every check held, 1 otherwise, 2 when the browser cannot start.
"""
import argparse
import json
import os
import shutil
import sys
import time

from browser_check import browser

WIDE = (1000, 700)
PHONE = (390, 844)


class Page:
    def __init__(self, driver, timeout):
        self.driver = driver
        self.timeout = timeout
        self.failures = []

    def script(self, text, *arguments):
        return self.driver.execute_script(text, *arguments)

    def wait(self, what, condition, timeout=None):
        """Waits until `condition()` is truthy; records a failure naming `what` at the deadline."""
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait

        try:
            return WebDriverWait(self.driver, timeout or self.timeout, poll_frequency=0.1).until(
                lambda _: condition())
        except TimeoutException:
            self.failures.append(f"{what} (not within {timeout or self.timeout:g} s)")
            return None

    def pack(self, name):
        """A listed pack's state and completed count, or None when it is not listed."""
        return self.script("""
            const item = [...document.querySelectorAll('#pack-list li.pack')].find(i => i.dataset.name === arguments[0]);
            return item ? {state: item.dataset.state, completed: item.dataset.completed,
                           figures: item.querySelector('.figures').textContent,
                           bar: item.querySelector('.bar').getAttribute('aria-valuenow')} : null;""", name)

    def listed(self):
        return self.script("return [...document.querySelectorAll('#pack-list li.pack')].map(i => i.dataset.name)")

    def state(self):
        return self.script("""const p = window.packfsPage || {};
            return {idle: !!p.idle, errors: p.errors || [], selected: p.selected || null, polls: p.polls || 0};""")


def viewport(driver, width, height):
    """Sizes the window so that the page gets `width` x `height` (the window's own frame aside)."""
    driver.set_window_size(width, height)
    frame = driver.execute_script("return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight]")
    driver.set_window_size(width + max(0, frame[0]), height + max(0, frame[1]))


def completed(entry):
    return int(entry["completed"]) if entry and entry["completed"] else None


def check_packs(page, args, seen):
    page.wait("both packs listed with their states", lambda: (
        (page.pack(args.complete) or {}).get("state") == "complete"
        and (page.pack(args.downloading) or {}).get("state") == "active"
        and completed(page.pack(args.downloading)) is not None))
    first = completed(page.pack(args.downloading))
    seen["complete"] = page.pack(args.complete)
    seen["downloading_first"] = page.pack(args.downloading)
    drawn = page.wait("the complete pack drawn (map idle, coverage layer on it)", lambda: (
        page.state()["idle"] or page.state()["errors"]) and page.state())
    seen.update(page.state())
    if drawn and drawn["selected"] != args.complete:
        page.failures.append(f"selected {drawn['selected']}, not {args.complete}")
    seen["coverage"] = page.script("""const map = window.packfsPage.map;
        return {layer: !!(map && map.getLayer('packfs-coverage')),
                features: map && map.getSource('packfs-coverage') ? map.querySourceFeatures('packfs-coverage').length : 0};""")
    if not seen["coverage"]["layer"] or seen["coverage"]["features"] == 0:
        page.failures.append(f"no coverage drawn: {seen['coverage']}")
    if first is not None:
        page.wait(f"{args.downloading}'s progress rising above {first}",
                  lambda: (completed(page.pack(args.downloading)) or 0) > first)
    seen["downloading_last"] = page.pack(args.downloading)
    seen["figures"] = page.script(
        "return Object.fromEntries([...document.querySelectorAll('[data-figure]')].map(n => [n.dataset.figure, n.textContent]))")
    if any(text in ("", "…") for text in seen["figures"].values()):
        page.failures.append(f"figures not shown: {seen['figures']}")
    seen["links"] = page.wait("the selected pack's files linked", lambda: (
        links := page.script("return [...document.querySelectorAll('#files a')].map(a => a.href)"))
        and any(link.endswith("/tiles.json") for link in links) and links)


def check_changes(page, args, seen):
    name, region = args.add.split("=", 1)
    shutil.copyfile(region, os.path.join(args.packs, name + ".region"))
    seen["added"] = bool(page.wait(f"{name} joining the list", lambda: name in page.listed()))
    os.remove(os.path.join(args.packs, name + ".region"))
    seen["removed"] = bool(page.wait(f"{name} leaving the list", lambda: name not in page.listed()))
    seen["listed_after"] = page.listed()


def check_phone(page, args, seen):
    # A window is never narrower than 500 px: the phone is emulated, as DevTools' device mode does.
    page.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})
    layout = page.wait("the page laid out for a phone's width", lambda: (
        layout := page.script("""
            const map = document.getElementById('map').getBoundingClientRect();
            const packs = document.getElementById('packs').getBoundingClientRect();
            return {width: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth,
                    map: Math.round(map.width), packsTop: Math.round(packs.top), mapBottom: Math.round(map.bottom)};"""))
        and layout["width"] <= PHONE[0] and layout["scroll"] <= layout["width"]
        and layout["map"] >= layout["width"] - 2 and layout["packsTop"] >= layout["mapBottom"] and layout)
    seen["phone"] = layout
    page.wait("the map idle at a phone's width", lambda: page.script(
        "const m = window.packfsPage.map; return m && m.loaded()"))
    base, extension = os.path.splitext(args.screenshot)
    page.driver.save_screenshot(base + "-phone" + extension)


def requests_made(driver):
    """Every URL the browser asked for (page and workers), from its DevTools network log."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("screenshot")
    parser.add_argument("--complete", required=True)
    parser.add_argument("--downloading", required=True)
    parser.add_argument("--packs")
    parser.add_argument("--add")
    parser.add_argument("--timeout", type=float, default=90)
    args = parser.parse_args()

    try:
        driver = browser(*WIDE, performance=True)
    except Exception as error:  # the browser or its driver is missing or broken
        print(json.dumps({"failures": [f"browser did not start: {error}"]}))
        return 2
    page = Page(driver, args.timeout)
    seen = {}
    started = time.monotonic()
    requests = []
    try:
        viewport(driver, *WIDE)
        driver.get(args.url)
        check_packs(page, args, seen)
        driver.save_screenshot(args.screenshot)
        if args.packs and args.add:
            check_changes(page, args, seen)
        check_phone(page, args, seen)
        seen["errors"] = page.state()["errors"]
        requests = requests_made(driver)
        seen["console"] = [f"{entry['level']} {entry['message']}" for entry in driver.get_log("browser")]
    finally:
        driver.quit()
    if seen.get("errors"):
        page.failures.append(f"map errors: {seen['errors']}")
    seen["requests"] = len(requests)
    # MapLibre starts its workers from a blob: URL of the page's own origin.
    origin = "/".join(args.url.split("/")[:3])
    seen["outside"] = [url for url in requests
                       if not url.startswith(args.url) and not url.startswith("data:") and not url.startswith("blob:" + origin + "/")]
    if seen["outside"]:
        page.failures.append(f"requests outside {args.url}: {seen['outside'][:10]}")
    if not any(url.endswith(".pbf") for url in requests):
        page.failures.append("the network log shows no tile request: it does not see every request")
    severe = [line for line in seen.get("console", []) if line.startswith("SEVERE")]
    if severe:
        page.failures.append(f"console errors: {severe[:10]}")
    seen["failures"] = page.failures
    seen["seconds"] = round(time.monotonic() - started, 3)
    seen["screenshot"] = args.screenshot
    print(json.dumps(seen))
    return 1 if page.failures else 0


if __name__ == "__main__":
    sys.exit(main())
