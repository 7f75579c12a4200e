"""Accessibility checks for the browser tests: axe-core (shipped by the `axe-selenium-python` package on PyPI, installed
into .build/client-sdks on first use) on the current page, failing on serious or critical violations; and keyboard
reach: Tab through the page and name every action (link, button, field, summary, element with a click handler or an
interactive role) that focus never reaches.

    assert_accessible(driver, "inbox list")      # AssertionError naming each serious or critical violation
    assert unreachable_by_keyboard(driver) == []
"""

import os

from .server import install_packages

AXE_REQUIREMENT = "axe-selenium-python==2.1.6"  # the last release for Python 3.11; ships axe-core's axe.min.js
BLOCKING = ("serious", "critical")

# Marks every action of the page with data-kbd-index and (followed by _RETURN_SEEN) returns their descriptions, in
# document order. A link needs an href, a field must not be hidden or disabled, and an element with a click handler
# or an interactive role counts too (a <div onclick> that focus cannot reach is what this is for).
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
"""
_RETURN_SEEN = "return seen;"

# Run after _MARK_ACTIONS (in the same script, before its `return`): notes, from now on, the index of each marked
# action that gets focus: by a focusin in this document, or, when focus moves into a frame (the top window blurs; no
# focusin here), the frame then focused. Then the walk starts from the top, nothing focused.
_NOTE_FOCUS = """
window.__kbdNoted = [];
if (!window.__kbdNoting) {
    window.__kbdNoting = true;
    const note = function (e) {
        if (e && e.hasAttribute && e.hasAttribute('data-kbd-index'))
            window.__kbdNoted.push(Number(e.getAttribute('data-kbd-index')));
    };
    document.addEventListener('focusin', function (event) { note(event.target); }, true);
    window.addEventListener('blur', function () { note(document.activeElement); });
}
if (document.activeElement) document.activeElement.blur();
window.scrollTo(0, 0);
"""

# What _NOTE_FOCUS noted so far, and the action focused now (as the slow walk looks at it).
_NOTED = """
const e = document.activeElement, noted = window.__kbdNoted || [];
return e && e.hasAttribute('data-kbd-index') ? noted.concat([Number(e.getAttribute('data-kbd-index'))]) : noted;
"""

_FOCUSED = """
const e = document.activeElement;
return e && e.hasAttribute('data-kbd-index') ? Number(e.getAttribute('data-kbd-index')) : -1;
"""


def install_axe():
    """Installs axe-selenium-python (which ships axe-core's axe.min.js) into .build/client-sdks unless it is there;
    scripts/bootstrap --test does it beside the build, so that no walk waits for pip."""
    install_packages("axe-selenium-python", [AXE_REQUIREMENT], ["axe_selenium_python"], no_deps=True)


_axe_source = []  # axe.min.js, read once


def _axe_run_script():
    """axe-core's source followed by a run on the current page whose callback gets its violations alone (the passes,
    incomplete and inapplicable lists, with every node's HTML, are most of the results and nobody reads them)."""
    if not _axe_source:
        install_axe()
        import axe_selenium_python

        path = os.path.join(os.path.dirname(axe_selenium_python.__file__), "node_modules", "axe-core", "axe.min.js")
        with open(path, encoding="utf8") as file:
            _axe_source.append(file.read() + _AXE_RUN)
    return _axe_source[0]


# What follows axe-core's source in the one script that injects and runs it (one round trip, not two).
_AXE_RUN = """
;const done = arguments[arguments.length - 1];
axe.run().then(function (results) { done(results.violations); },
               function (error) { done({axeFailed: String(error)}); });
"""


def axe_violations(driver):
    """axe-core's violations (every impact) on the current page, injected and run in one script."""
    found = driver.execute_async_script(_axe_run_script())
    if isinstance(found, dict):
        raise AssertionError("axe-core failed on %s: %s" % (driver.current_url, found.get("axeFailed")))
    return found


def blocking_violations(driver):
    """The serious and critical violations axe finds on the current page, one line each: rule, impact, help and the
    elements (CSS targets) it names."""
    lines = []
    for violation in axe_violations(driver):
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
    `extra_presses` more have gone by. Focus inside a frame counts for the frame.

    First the quick way: the page notes every action that gets focus while Tab is pressed several times per round
    trip. When that reaches them all, that is the answer (every note is a focus the slow way would have seen, so it
    reaches nothing the slow way does not). Otherwise the slow way answers: one press, then a look at the focused
    element, from the top again, with the same bound, so a failure names exactly what it always named."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver.switch_to.default_content()
    actions = driver.execute_script(_MARK_ACTIONS + _NOTE_FOCUS + _RETURN_SEEN)
    presses, reached = 2 * len(actions) + extra_presses, set()
    batch = len(actions) + 1
    while presses > 0 and len(reached) < len(actions):
        batch = min(batch, presses)
        ActionChains(driver).send_keys(Keys.TAB * batch).perform()
        presses -= batch
        driver.switch_to.default_content()
        reached.update(driver.execute_script(_NOTED))
        batch = max(1, len(actions) - len(reached))
    if len(reached) == len(actions):
        return []

    actions = driver.execute_script(_MARK_ACTIONS + _RETURN_SEEN)
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
