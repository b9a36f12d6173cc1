from typing import Any
from tests.e2e.acting import ok, open_page
def test_snap(daemon, pages, page) -> None:
    open_page(daemon, page["id"], f"{pages}/hostile/links.html")
    print(ok(daemon, "browser_snapshot", tab_id=page["id"]))
    open_page(daemon, page["id"], f"{pages}/hostile/names.html")
    print(ok(daemon, "browser_snapshot", tab_id=page["id"]))
    print(ok(daemon, "browser_snapshot", tab_id=page["id"], interactive_only=True))
