"""Fixture pages for browser_fill_form: a plain HTML form with every kind of field, a React 18 app
and a Vue 3 app, both built on the real libraries vendored under tests/fixtures/vendor/ (the page
server serves them at /vendor/<lib>/<file>, conftest.py).

Each entry is served by the e2e page server at its path: (headers, body).
"""

from __future__ import annotations

# Every kind of field a form has, native and ARIA, and the ones that cannot be filled. Its submit
# sends the form by GET to /form/done.html, which shows what it received in #received.
PLAIN = """<!doctype html><title>every field</title>
<style>
  [role=listbox][hidden] { display: none; }
  [role=option][aria-selected=true] { font-weight: bold; }
  .popup { position: absolute; background: white; border: 1px solid #888; z-index: 2; }
</style>
<form id="f" action="/form/done.html" method="get">
  <label>Name <input name="name"></label>
  <label>Email <input name="email" type="email"></label>
  <label>Password <input name="password" type="password"></label>
  <label>Age <input name="age" type="number" min="0" max="150"></label>
  <label>Birthday <input name="birthday" type="date"></label>
  <label>Alarm <input name="alarm" type="time"></label>
  <label>Volume <input name="volume" type="range" min="0" max="10"></label>
  <label>Colour <input name="colour" type="color"></label>
  <label>Notes <textarea name="notes"></textarea></label>
  <label>Size <select name="size">
    <option value="s">Small</option><option value="m">Medium</option>
    <option value="l">Large</option>
  </select></label>
  <label>Days <select name="days" multiple>
    <option>Mon</option><option>Tue</option><option>Wed</option>
  </select></label>
  <label><input type="checkbox" name="terms"> Terms</label>
  <fieldset><legend>Plan</legend>
    <label><input type="radio" name="plan" value="free" checked> Free</label>
    <label><input type="radio" name="plan" value="pro"> Pro</label>
  </fieldset>
  <div role="switch" aria-checked="false" tabindex="0" id="dark" aria-label="Dark mode">off</div>
  <div role="checkbox" aria-checked="false" tabindex="0" id="promo" aria-label="Promotions">☐</div>
  <div contenteditable="true" aria-label="Bio" id="bio" style="min-height: 1em"></div>
  <ul role="listbox" aria-label="Toppings" aria-multiselectable="true" id="toppings">
    <li role="option" aria-selected="false">Cheese</li>
    <li role="option" aria-selected="false">Olives</li>
    <li role="option" aria-selected="false">Basil</li>
  </ul>
  <div role="combobox" tabindex="0" aria-label="Fruit" aria-controls="fruits" aria-expanded="false"
    id="fruit">Choose</div>
  <ul role="listbox" id="fruits" class="popup" hidden>
    <li role="option">Apple</li><li role="option">Banana</li><li role="option">Cherry</li>
  </ul>
  <label>Locked <input name="locked" disabled></label>
  <label>Fixed <input name="fixed" value="fixed" readonly></label>
  <label>Photo <input name="photo" type="file"></label>
  <button type="button" id="noop">Nothing</button>
  <input type="hidden" name="extra" id="extra">
  <button id="send">Send</button>
</form>
<script>
  const toggle = (el, on, off) => el.addEventListener("click", () => {
    const now = el.getAttribute("aria-checked") !== "true";
    el.setAttribute("aria-checked", String(now));
    el.textContent = now ? on : off;
  });
  toggle(document.getElementById("dark"), "on", "off");
  toggle(document.getElementById("promo"), "☑", "☐");
  for (const option of document.querySelectorAll("#toppings [role=option]")) {
    option.addEventListener("click", () => option.setAttribute("aria-selected",
      String(option.getAttribute("aria-selected") !== "true")));
  }
  const fruit = document.getElementById("fruit");
  const fruits = document.getElementById("fruits");
  fruit.addEventListener("click", () => {
    fruits.hidden = !fruits.hidden;
    fruit.setAttribute("aria-expanded", String(!fruits.hidden));
  });
  for (const option of fruits.children) {
    option.addEventListener("click", () => {
      fruit.textContent = option.textContent;
      fruits.hidden = true;
      fruit.setAttribute("aria-expanded", "false");
      document.getElementById("extra").value = option.textContent;
    });
  }
  window.extras = () => ({
    dark: document.getElementById("dark").getAttribute("aria-checked"),
    promo: document.getElementById("promo").getAttribute("aria-checked"),
    bio: document.getElementById("bio").textContent,
    toppings: [...document.querySelectorAll("#toppings [aria-selected=true]")]
      .map((o) => o.textContent),
    fruit: fruit.textContent,
  });
</script>"""

DONE = """<!doctype html><title>received</title><pre id="received"></pre>
<script>
  document.getElementById("received").textContent =
    [...new URLSearchParams(location.search)].map(([k, v]) => `${k}=${v}`).join("\\n");
</script>"""

# A signup form as a React 18 app writes one: every field controlled by state, a radio group, and
# a country combobox of its own (an input that filters a listbox as one types; an option is chosen
# with a click). Submitting renders the state as JSON into #preview.
REACT = """<!doctype html><title>react signup</title>
<style>.popup { position: absolute; background: white; border: 1px solid #888; z-index: 2;
  margin: 0; padding: 0; list-style: none; } .popup li { padding: 2px 8px; }</style>
<div id="root"></div>
<script src="/vendor/react/react.production.min.js"></script>
<script src="/vendor/react-dom/react-dom.production.min.js"></script>
<script>
  const h = React.createElement;
  const COUNTRIES = ["France", "Germany", "Japan", "Kenya", "Peru"];
  const START = { name: "", email: "", password: "", age: "", birthday: "", bio: "",
    role: "dev", newsletter: false, plan: "free", country: "" };

  function Country({ value, onChange }) {
    const [query, setQuery] = React.useState(value);
    const [open, setOpen] = React.useState(false);
    const shown = COUNTRIES.filter((c) => c.toLowerCase().includes(query.toLowerCase()));
    return h("div", null,
      h("label", { htmlFor: "country" }, "Country"),
      h("input", { id: "country", role: "combobox", "aria-controls": "countries",
        "aria-expanded": String(open), "aria-autocomplete": "list", value: query,
        onFocus: () => setOpen(true), onBlur: () => setOpen(false),
        onChange: (e) => { setQuery(e.target.value); setOpen(true); } }),
      open && h("ul", { id: "countries", role: "listbox", className: "popup" },
        shown.map((c) => h("li", { key: c, role: "option", "aria-selected": String(c === value),
          onMouseDown: (e) => e.preventDefault(),
          onClick: () => { onChange(c); setQuery(c); setOpen(false); } }, c))));
  }

  function App() {
    const [form, setForm] = React.useState(START);
    const [sent, setSent] = React.useState(null);
    const set = (key) => (e) => setForm({ ...form,
      [key]: e.target.type === "checkbox" ? e.target.checked : e.target.value });
    const field = (label, key, type = "text") => h("label", null, label,
      h("input", { type, name: key, value: form[key], onChange: set(key) }));
    return h("form", { onSubmit: (e) => { e.preventDefault(); setSent(form); } },
      field("Name", "name"), field("Email", "email", "email"),
      field("Password", "password", "password"), field("Age", "age", "number"),
      field("Birthday", "birthday", "date"),
      h("label", null, "Bio", h("textarea", { value: form.bio, onChange: set("bio") })),
      h("label", null, "Role", h("select", { value: form.role, onChange: set("role") },
        h("option", { value: "dev" }, "Developer"), h("option", { value: "pm" }, "Product manager"),
        h("option", { value: "ops" }, "Operations"))),
      h("label", null, h("input", { type: "checkbox", checked: form.newsletter,
        onChange: set("newsletter") }), "Newsletter"),
      h("fieldset", null, h("legend", null, "Plan"), ["free", "team", "enterprise"].map((p) =>
        h("label", { key: p }, h("input", { type: "radio", name: "plan", value: p,
          checked: form.plan === p, onChange: set("plan") }), p[0].toUpperCase() + p.slice(1)))),
      h(Country, { value: form.country, onChange: (c) => setForm((f) => ({ ...f, country: c })) }),
      h("button", { type: "submit" }, "Create account"),
      sent && h("pre", { id: "preview" }, JSON.stringify(sent)));
  }
  ReactDOM.createRoot(document.getElementById("root")).render(h(App));
</script>"""

# The same kind of form in Vue 3, every field bound with v-model (the template compiled in the
# page); the bound state is rendered into #preview as JSON as it changes.
VUE = """<!doctype html><title>vue settings</title>
<div id="app">
  <label>Display name <input v-model="form.name"></label>
  <label>Items per page <input type="number" v-model.number="form.perPage"></label>
  <label>Start date <input type="date" v-model="form.start"></label>
  <label>Signature <textarea v-model="form.signature"></textarea></label>
  <label>Theme <select v-model="form.theme">
    <option value="light">Light</option><option value="dark">Dark</option></select></label>
  <label>Languages <select multiple v-model="form.languages">
    <option>English</option><option>French</option><option>Swahili</option></select></label>
  <label><input type="checkbox" v-model="form.alerts"> Alerts</label>
  <label><input type="radio" value="daily" v-model="form.digest"> Daily</label>
  <label><input type="radio" value="weekly" v-model="form.digest"> Weekly</label>
  <button type="button" role="switch" :aria-checked="String(form.beta)" aria-label="Beta"
    @click="form.beta = !form.beta">Beta</button>
  <pre id="preview">{{ JSON.stringify(form) }}</pre>
</div>
<script src="/vendor/vue/vue.global.prod.js"></script>
<script>
  Vue.createApp({ data: () => ({ form: { name: "", perPage: 10, start: "", signature: "",
    theme: "light", languages: [], alerts: false, digest: "daily", beta: false } }) })
    .mount("#app");
</script>"""

FORM_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/form/plain.html": ({}, PLAIN),
    "/form/done.html": ({}, DONE),
    "/form/react.html": ({}, REACT),
    "/form/vue.html": ({}, VUE),
}
