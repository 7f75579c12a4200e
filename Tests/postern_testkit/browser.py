"""Headless Chromium for the browser tests (Selenium; Debian's `chromium-headless-shell`, else `chromium`, and
`chromium-driver`, `selenium` from PyPI, as scripts/bootstrap --test installs them), and what a test does beside the browser: the HTTP status of a page
fetched with the browser's own cookies (Selenium does not tell it), a download into a directory of the test's own,
and the page's width at a phone's viewport.

    driver = make_driver(downloads=tempdir)
    status_of(driver, url)                       # 404 for another person's message, with this person's session
    data = download(driver, link, tempdir)       # the bytes of the file a click saved
    click_through(driver, button)                # a click that posts, returning once its page has gone
    run_walks("test_x")                          # a browser test's main: its unittest walks, their time, exit status
    fill_form(driver, "sign-in-form", {"email": e})  # the form, its fields typed in (emptied first)
    wait = waiter(driver)                        # a WebDriverWait that looks again every POLL s, not every 0.5 s
    hold_until(shown + 2)                        # a "nothing happened" check not before the page has had 2 s
    with scripts_off(driver): ...                # the pages' scripts off in this browser meanwhile, not another one
    clear_cookies(driver)                        # every site's cookies, whatever page is open (about:blank too)
"""

import contextlib
import os
import sys
import time
import unittest
import urllib.error
import urllib.request

from .forms import NoRedirect

PHONE_WIDTH = 390
PHONE_HEIGHT = 844
# How often a wait looks again. Selenium's default, half a second, was most of a walk's idle time: nearly every post
# (click_through) and every element a page had not drawn yet at the first look waited a whole half second.
POLL = 0.05


def waiter(driver, timeout=20):
    """A WebDriverWait on `driver` of `timeout` s that looks again every POLL s."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=POLL)


# Chromium's headless shell (Debian's `chromium-headless-shell`, the same version as `chromium`): the browser
# without its windowing layer, a third less CPU than `chromium --headless=new` for the same pages and screenshots.
HEADLESS_SHELLS = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium-headless-shell")


def make_driver(width=1280, height=1800, downloads=None, javascript=True):
    """A headless Chromium of `width` x `height` CSS pixels; saves downloads into `downloads` without asking; runs no
    script of the pages when `javascript` is False (the driver's own still run)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    shell = next((p for p in HEADLESS_SHELLS if os.path.exists(p)), None)
    if shell:
        options.binary_location = shell
    else:
        for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
            if os.path.exists(path):
                options.binary_location = path
                break
        options.add_argument("--headless=new")
    for argument in ("--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=%d,%d" % (width, height)):
        options.add_argument(argument)
    prefs = {} if javascript else {"profile.managed_default_content_settings.javascript": 2}
    if downloads:
        prefs.update({"download.default_directory": downloads, "download.prompt_for_download": False,
                      "safebrowsing.enabled": False})
    if prefs:
        options.add_experimental_option("prefs", prefs)
    driver_path = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if os.path.exists(p)),
                       None)
    service = Service(executable_path=driver_path) if driver_path else Service()
    driver = webdriver.Chrome(service=service, options=options)
    if downloads:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    if not javascript:
        _set_scripts(driver, False)
    return driver


# Run by WebDriver, whose own scripts run whatever the page's setting: a script element of the page's, added to it,
# sets a global only when the page may run scripts. On about:blank, where no Content-Security-Policy forbids it.
_PAGE_SCRIPT_RUNS = """
const s = document.createElement('script');
s.textContent = 'window.__pageScriptRan = true;';
document.documentElement.appendChild(s);
return window.__pageScriptRan === true;
"""


def _set_scripts(driver, on):
    # The headless shell has no profile to read a content setting from: the DevTools switch turns the pages' scripts
    # off (or on again) in both browsers, on every page opened next (WebDriver's own still run). Checked on a blank
    # page, so that a walk with JavaScript off never runs with it on unnoticed.
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": not on})
    driver.get("about:blank")
    if driver.execute_script(_PAGE_SCRIPT_RUNS) != on:
        raise AssertionError("the pages' scripts are still %s" % ("off" if on else "on"))


def clear_cookies(driver):
    """Deletes every cookie of the browser, of every site. (WebDriver's delete_all_cookies deletes the open page's
    site's alone: nothing at all on about:blank.)"""
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})


@contextlib.contextmanager
def scripts_off(driver):
    """The pages' scripts off in `driver` while inside (checked), on again after: a walk with JavaScript off in the
    browser a test already has (a second Chromium costs its start and its memory). Leaves the driver on about:blank
    both ways; clear_cookies first for a new visitor, and after, to leave no session behind."""
    _set_scripts(driver, False)
    try:
        yield driver
    finally:
        _set_scripts(driver, True)


def hold_until(moment):
    """Returns once time.monotonic() has reached `moment`. For a check that something did not happen (no fetch, no
    script, no navigation), which needs the page to have had a given time (a meta refresh's second): the time counts
    from when the page came, so what the test does meanwhile (screenshots, axe) counts toward it instead of a fixed
    sleep after."""
    time.sleep(max(0.0, moment - time.monotonic()))


def fill_form(driver, form_id, values):
    """Types each of `values` (field name: text) into its field of the form `form_id`, emptied first; returns the form."""
    from selenium.webdriver.common.by import By

    form = driver.find_element(By.ID, form_id)
    for name, value in values.items():
        field = form.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)
    return form


def click_through(driver, button, timeout=20):
    """Clicks `button` (one that submits a form) and returns once the page it was on has gone, so that what the test
    waits for next (a #notice, an #error) is the answer's and never the old page's. While Chromium navigates, asking
    about the old page may fail in other ways than "stale" (no execution context yet): those mean "not yet"."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page = driver.find_element(By.TAG_NAME, "html")
    button.click()

    def gone(_):
        try:
            page.is_enabled()
            return False
        except StaleElementReferenceException:
            return True

    WebDriverWait(driver, timeout, poll_frequency=POLL, ignored_exceptions=(WebDriverException,)).until(
        gone, "the post was not answered")


def set_viewport(driver, width, height=900):
    """Makes the page's layout viewport `width` CSS pixels wide (the window's outer size is larger by its frame)."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return window.innerWidth")
    if inner != width:
        driver.set_window_size(width + (width - inner), height)


def status_of(driver, url, method="GET", data=None, headers=None, cookies=None):
    """(status, Location) of a request to `url` carrying the browser's cookies for it (or `cookies`, a list that
    driver.get_cookies() gave earlier); follows no redirect."""
    jar = driver.get_cookies() if cookies is None else cookies
    cookie = "; ".join("%s=%s" % (c["name"], c["value"]) for c in jar)
    request = urllib.request.Request(url, data=data, method=method, headers={"Cookie": cookie, **(headers or {})})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, response.headers.get("Location")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Location")


def download(driver, element, directory, timeout=20):
    """Clicks `element` (a link or button that downloads) and returns (file name, bytes) of the new file that lands in
    `directory` (the driver's download directory) once Chromium has finished writing it: its size the same, and not
    zero, two looks 0.1 s apart. (The headless shell may create the file under its own name before it writes to it, so
    a name without `.crdownload` is not enough; a download of no bytes never lands here, and no walk makes one.)"""
    before = set(os.listdir(directory))
    element.click()
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        new = [n for n in set(os.listdir(directory)) - before
               if not n.endswith((".crdownload", ".tmp")) and not n.startswith(".com.google")]
        if new:
            path = os.path.join(directory, new[0])
            size = os.path.getsize(path)
            if size and size == seen:
                with open(path, "rb") as file:
                    return new[0], file.read()
            seen = size
        time.sleep(0.1)
    raise AssertionError("no download landed in %s within %d s" % (directory, timeout))


def run_walks(name):
    """The main of a browser test whose walks are the unittest cases of its `__main__` (one server and one browser
    for them all, in its setUpClass): runs them in name order, prints how long they took under `name`, and exits 0
    when every one passed."""
    started = time.monotonic()
    result = unittest.main(module="__main__", exit=False, verbosity=2).result
    print("%s: %.1f s" % (name, time.monotonic() - started), file=sys.stderr)
    sys.exit(0 if result.wasSuccessful() else 1)
