"""Accessibility checks for the browser tests: axe-core (shipped by the `axe-selenium-python` package on PyPI, installed
into .build/client-sdks on first use) on the current page, failing on serious or critical violations; and keyboard
reach: Tab through the page and name every action (link, button, field, summary, element with a click handler or an
interactive role) that focus never reaches.

    assert_accessible(driver, "inbox list")      # AssertionError naming each serious or critical violation
    assert unreachable_by_keyboard(driver) == []
"""

from .server import install_packages

AXE_REQUIREMENT = "axe-selenium-python==2.1.6"  # the last release for Python 3.11; ships axe-core's axe.min.js
BLOCKING = ("serious", "critical")

# Marks every action of the page with data-kbd-index and returns their descriptions, in document order. A link
# needs an href, a field must not be hidden or disabled, and an element with a click handler or an interactive role
# counts too (a <div onclick> that focus cannot reach is what this is for).
_MARK_ACTIONS = """
const selector = 'a[href], area[href], button, input, select, textarea, summary, iframe, [onclick], [tabindex],' +
    '[role=button], [role=link], [role=checkbox], [role=menuitem], [role=tab], [role=switch], [contenteditable=true]';
const seen = [];
for (const e of document.querySelectorAll(selector)) {
    if (e.disabled || (e.tagName === 'INPUT' && e.type === 'hidden')) continue;
    if (e.getAttribute('tabindex') === '-1' && !e.hasAttribute('onclick') && !e.getAttribute('role')) continue;
    const r = e.getBoundingClientRect(), style = getComputedStyle(e);
    if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
    e.setAttribute('data-kbd-index', String(seen.length));
    const label = (e.getAttribute('aria-label') || e.innerText || e.value || e.name || e.title || '').trim();
    seen.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (label ? ' "' + label.slice(0, 40) + '"' : ''));
}
return seen;
"""

_FOCUSED = """
const e = document.activeElement;
return e && e.hasAttribute('data-kbd-index') ? Number(e.getAttribute('data-kbd-index')) : -1;
"""


def axe_results(driver, options=None):
    """axe-core's results (violations, passes, incomplete, inapplicable) for the current page."""
    install_packages("axe-selenium-python", [AXE_REQUIREMENT], ["axe_selenium_python"], no_deps=True)
    from axe_selenium_python import Axe

    axe = Axe(driver)
    axe.inject()
    return axe.run(options=options)


def blocking_violations(driver):
    """The serious and critical violations axe finds on the current page, one line each: rule, impact, help and the
    elements (CSS targets) it names."""
    lines = []
    for violation in axe_results(driver)["violations"]:
        if violation.get("impact") not in BLOCKING:
            continue
        targets = ", ".join(" ".join(map(str, node["target"])) for node in violation["nodes"][:5])
        lines.append("%s (%s): %s at %s" % (violation["id"], violation["impact"], violation["help"], targets))
    return lines


def assert_accessible(driver, where):
    """Fails, listing them, when axe finds a serious or critical violation on the current page (`where` names it)."""
    found = blocking_violations(driver)
    if found:
        raise AssertionError("axe on %s (%s): %d serious or critical violation(s):\n  %s"
                             % (where, driver.current_url, len(found), "\n  ".join(found)))


def unreachable_by_keyboard(driver, extra_presses=20):
    """The actions of the current page that Tab never focuses (descriptions), pressing Tab from the top of the page
    until each has had focus or twice as many presses as actions (the actions inside a frame take presses too) and
    `extra_presses` more have gone by. Focus inside a frame counts for the frame."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver.switch_to.default_content()
    actions = driver.execute_script(_MARK_ACTIONS)
    driver.execute_script("if (document.activeElement) document.activeElement.blur(); window.scrollTo(0, 0);")
    reached = set()
    for _ in range(2 * len(actions) + extra_presses):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        driver.switch_to.default_content()
        index = driver.execute_script(_FOCUSED)
        if index >= 0:
            reached.add(index)
        if len(reached) == len(actions):
            break
    return [description for index, description in enumerate(actions) if index not in reached]
