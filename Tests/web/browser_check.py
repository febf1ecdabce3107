#!/usr/bin/env python3
"""Opens a web map page in headless Chromium and waits for MapLibre GL JS to finish drawing.

usage: browser_check.py URL SCREENSHOT.png [--timeout SECONDS] [--size WIDTHxHEIGHT]

URL is a page like Tests/web/index.html, which records in window.packfsMap whether the map went
idle and every error event. Chromium is Debian's (/usr/bin/chromium, /usr/bin/chromedriver),
driven by selenium from PyPI, WebGL through SwiftShader (no GPU needed). Nothing beyond
127.0.0.1 is reachable: every other host name fails to resolve, and background services are off.

Prints one JSON line: {"idle", "errors", "console", "seconds", "screenshot"}. Exits 0 when the map
went idle with no error event before the deadline, 1 otherwise, 2 when the browser cannot start.
"""
import argparse
import json
import os
import sys
import time

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def browser(width, height, performance=False):
    """Headless Chromium at `width` x `height`; with `performance`, it also keeps the DevTools
    network log (driver.get_log("performance"))."""
    # Selenium Manager would look for drivers on the network; the paths are given instead.
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in [
        "--headless=new", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}",
        "--force-device-scale-factor=1", "--no-first-run", "--no-default-browser-check",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-default-apps", "--disable-domain-reliability", "--disable-extensions",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", **({"performance": "ALL"} if performance else {})})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("screenshot")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--size", default="1024x768")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))

    try:
        driver = browser(width, height)
    except Exception as error:  # the browser or its driver is missing or broken
        print(json.dumps({"idle": False, "errors": [f"browser did not start: {error}"]}))
        return 2
    try:
        started = time.monotonic()
        driver.get(args.url)
        deadline = started + args.timeout
        state = {"idle": False, "errors": []}
        while time.monotonic() < deadline:
            state = driver.execute_script("return window.packfsMap || {idle: false, errors: []}")
            if state["idle"] or state["errors"]:
                break
            time.sleep(0.05)
        seconds = time.monotonic() - started
        driver.save_screenshot(args.screenshot)
        console = [entry["message"] for entry in driver.get_log("browser")]
    finally:
        driver.quit()
    if not state["idle"] and not state["errors"]:
        state["errors"] = [f"the map did not go idle within {args.timeout:g} s"]
    print(json.dumps({"idle": state["idle"], "errors": state["errors"], "console": console,
                      "seconds": round(seconds, 3), "screenshot": args.screenshot}))
    return 0 if state["idle"] and not state["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
