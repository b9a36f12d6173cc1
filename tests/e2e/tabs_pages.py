"""Fixture pages of tests/e2e/test_opened_tabs.py: a page on 127.0.0.1 whose links and scripts
open tabs and popup windows on the other site, localhost (the `second_origin` fixture), and an
OAuth-style popup that redirects back to 127.0.0.1 and closes itself."""

from __future__ import annotations

# The page's links and scripts go to the same path on the other site: 127.0.0.1 <-> localhost.
_OTHER = """const other = location.origin.replace('127.0.0.1', 'localhost');
const popup = 'popup,width=420,height=320';"""

START = f"""<!doctype html><title>start</title>
<a href="/tabs/checkout.html?blank" target="_blank">Checkout</a>
<a href="/tabs/checkout.html?noopener" target="_blank" rel="noopener">Checkout alone</a>
<button onclick="window.open(other + '/tabs/checkout.html?script')">Open by script</button>
<button onclick="window.open(other + '/tabs/checkout.html?alone', '_blank', 'noopener')"
  >Open alone</button>
<button onclick="window.open(other + '/tabs/checkout.html?popup', 'pay', popup)"
  >Pay in a popup</button>
<button onclick="window.open(other + '/tabs/authorize.html', 'auth', popup)"
  >Sign in</button>
<p>Or: <button onclick="window.open(other + '/tabs/login.html', 'login', popup)"
  >Sign in by form</button></p>
<form action="/tabs/checkout.html" target="_blank"><input name="q" aria-label="Query">
  <button>Search in a new tab</button></form>
<p id="status">signed out</p>
<script>{_OTHER}
for (const a of document.querySelectorAll("a")) a.href = other + a.getAttribute("href");
addEventListener("message", (e) => {{ document.getElementById("status").textContent = e.data; }});
</script>"""

# The provider's page: no title, and off to the app's callback at once, as an OAuth provider
# that knows the user does.
AUTHORIZE = """<!doctype html><script>
const app = location.origin.replace('localhost', '127.0.0.1');
location.replace(app + '/tabs/callback.html?code=abc');
</script>"""

# A provider's sign-in form, sent back to the app's callback, which closes the popup.
LOGIN = """<!doctype html><title>Sign in</title>
<form><input name="user" aria-label="User"><button>Sign in</button></form>
<script>
const app = location.origin.replace('localhost', '127.0.0.1');
document.forms[0].action = app + '/tabs/callback.html';
</script>"""

CALLBACK = """<!doctype html><title>callback</title><script>
window.opener?.postMessage('signed in', '*');
window.close();
</script>"""

TABS_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/tabs/start.html": ({}, START),
    "/tabs/checkout.html": (
        {},
        '<!doctype html><title>Checkout</title><p id="total">Total: 42</p>',
    ),
    "/tabs/authorize.html": ({}, AUTHORIZE),
    "/tabs/login.html": ({}, LOGIN),
    "/tabs/callback.html": ({}, CALLBACK),
}
