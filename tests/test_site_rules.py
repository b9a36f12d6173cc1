"""The daemon's site rules (`tabpilot serve --block-site/--only-site`, TABPILOT_BLOCK_SITES and
TABPILOT_ONLY_SITES): the syntax the extension shares, and the hello that carries them to it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tabpilot.cli.parser import build_parser
from tabpilot.config import Settings, parse_site
from tabpilot.errors import SiteBlocked, error_for_code
from tests.support import connected, run_daemon


@pytest.mark.parametrize(
    ("typed", "site"),
    [
        ("bank.example", "bank.example"),
        ("  BANK.Example. ", "bank.example"),
        ("*.example.com", "*.example.com"),
        ("https://www.bank.example/login?next=1", "www.bank.example"),
        ("127.0.0.1", "127.0.0.1"),
        ("münchen.de", "xn--mnchen-3ya.de"),
    ],
)
def test_a_site_is_kept_as_the_extension_keeps_it(typed: str, site: str) -> None:
    # The same table as extension-tests/site-rules.test.js.
    assert parse_site(typed) == site


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", "empty"),
        ("bank.example/login", "no path, no port"),
        ("bank.example:8443", "no path, no port"),
        ("*.1.2.3.4", "no subdomains"),
        ("-bad-.example", "not a host name"),
    ],
)
def test_a_site_that_is_not_one_says_what_to_write(typed: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_site(typed)


def test_the_environment_gives_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABPILOT_BLOCK_SITES", "bank.example, *.mail.example bank.example")
    monkeypatch.setenv("TABPILOT_ONLY_SITES", "docs.example")
    settings = Settings.from_env()
    assert settings.block_sites == ("bank.example", "*.mail.example")
    assert settings.site_rules == {
        "never": ["bank.example", "*.mail.example"],
        "only": ["docs.example"],
    }
    monkeypatch.delenv("TABPILOT_BLOCK_SITES")
    monkeypatch.delenv("TABPILOT_ONLY_SITES")
    assert Settings.from_env().site_rules is None


def test_serve_refuses_a_site_that_is_not_one_naming_the_flag() -> None:
    args = build_parser().parse_args(["serve", "--block-site", "bank.example/login"])
    assert args.block_site == ["bank.example/login"]
    run = subprocess.run(
        [sys.executable, "-m", "tabpilot", "serve", "--port", "1", "--block-site", "a.example:81"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode != 0
    assert "tabpilot: --block-site: 'a.example:81' is not a site" in run.stderr


async def test_the_daemons_hello_carries_its_rules_to_the_extension() -> None:
    with run_daemon(block_sites=("bank.example",), only_sites=("docs.example",)) as daemon:
        async with connected(daemon) as fake:
            assert fake.daemon_hello["site_rules"] == {
                "never": ["bank.example"],
                "only": ["docs.example"],
            }


def test_site_blocked_is_a_403_that_says_who_can_change_the_rules() -> None:
    assert error_for_code("site_blocked") is SiteBlocked
    assert SiteBlocked.status == 403
    assert "only the person can change the list" in SiteBlocked.default_message
