"""``Browser`` and ``AsyncBrowser``: the SDK's abstract browser toolsets, driven by tabpilot.

Both serve every member of :data:`tabpilot.claude.members.MEMBERS` with the same steps; they
differ only in how a step reaches the daemon (``tabpilot.Client`` or ``tabpilot.AsyncClient``)
and how the app's url_policy is called (plain, or awaited when it is a coroutine function).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from anthropic import NOT_GIVEN, NotGiven
from anthropic.tools import (
    BetaAbstractBrowserToolset20260801,
    BetaAsyncAbstractBrowserToolset20260801,
    BetaAsyncConfirmCallable,
    BetaAsyncURLPolicy,
    BetaBrowserState,
    BetaConfirmCallable,
    BetaFilePolicy,
    BetaToolConfigs,
    BetaToolsetCallContext,
    BetaURLContext,
    BetaURLPolicy,
)
from anthropic.types.beta import BetaBrowserToolsetConfigsParam

from tabpilot.claude.members import MEMBERS
from tabpilot.claude.state import Call, PolicyCheck, Session, Steps
from tabpilot.client import AsyncClient, Client

T = TypeVar("T")


def url_context(context: BetaToolsetCallContext, check: PolicyCheck) -> BetaURLContext:
    """What the url policy is told of a url a page reached: the member whose call it followed
    and the tab."""
    tool_use = context.tool_use
    name = tool_use.name if tool_use is not None and tool_use.name in MEMBERS else None
    return BetaURLContext.construct(
        member=name,
        tab_id=str(check.tab_id),
        tool_use_id=tool_use.id if tool_use is not None else None,
    )


def last_state(tabs: list[Any], session: Session) -> BetaBrowserState:
    """The report when the daemon cannot be asked (it stopped, say) or answered what the driver
    cannot read: the tabs last reported and what changed since; the next report corrects them."""
    changes, session.changes = session.changes, []
    return BetaBrowserState(tabs=tabs, state_changes=changes)


class Browser(BetaAbstractBrowserToolset20260801):
    """Claude's browser toolset (``browser_toolset_20260801``) in the browser tabpilot drives: a
    person's own Chrome under their AI Web Pilot switch, or the managed Chromium of ``tabpilot
    serve --browser``.

    ``client`` is a ``tabpilot.Client`` to use (else one is made from ``port``, ``token`` and
    ``context``, as ``tabpilot.Client`` reads them, and closed by :meth:`close`). ``trusted``
    is browser_act's and browser_mouse's ``trusted`` for every action (None: tabpilot's default
    route). The other options are the SDK's: ``configs`` (which members are offered),
    ``confirm`` (required to enable ``javascript_exec`` or ``file_upload``), ``url_policy``
    (the SDK applies it to ``navigate``; the driver also to the navigations a page starts, see
    tabpilot.claude.state), ``file_policy`` and ``tool_configs``.
    """

    def __init__(
        self,
        client: Client | None = None,
        *,
        port: int | None = None,
        token: str | None = None,
        context: str | None = None,
        trusted: bool | None = None,
        configs: BetaBrowserToolsetConfigsParam | None = None,
        confirm: BetaConfirmCallable | None = None,
        url_policy: BetaURLPolicy | NotGiven = NOT_GIVEN,
        file_policy: BetaFilePolicy | None = None,
        tool_configs: BetaToolConfigs | None = None,
    ) -> None:
        super().__init__(
            configs=configs,
            confirm=confirm,
            url_policy=url_policy,
            file_policy=file_policy,
            tool_configs=tool_configs,
        )
        self._owns_client = client is None
        self.client = client if client is not None else Client(port, token=token, context=context)
        self._url_policy = url_policy
        self._session = Session(trusted=trusted, policed=not isinstance(url_policy, NotGiven))
        self._tabs: list[Any] = []

    def _run(self, steps: Steps[T], context: BetaToolsetCallContext) -> T:
        answer: Any = None
        try:
            while True:
                request = steps.send(answer)
                if isinstance(request, Call):
                    answer = self.client.envelope(request.method, request.params)
                else:
                    answer = self._allows(request, context)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def _allows(self, check: PolicyCheck, context: BetaToolsetCallContext) -> bool:
        # As the SDK reads the policy for navigate: None allows; a raise, or anything else
        # returned, refuses (failing closed).
        policy = self._url_policy
        if isinstance(policy, NotGiven):
            return True
        try:
            returned: object = policy(url_context(context, check), check.url)
        except Exception:
            return False
        return returned is None

    def _browser_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        try:
            state = self._run(self._session.report(), context)
        except Exception:  # the SDK ends the run on a failed report: keep it going
            return last_state(self._tabs, self._session)
        self._tabs = list(state.tabs)
        return state

    def close(self) -> None:
        """Close the toolset (the SDK's), then the client it made."""
        super().close()
        if self._owns_client:
            self.client.close()


class AsyncBrowser(BetaAsyncAbstractBrowserToolset20260801):
    """:class:`Browser` for ``AsyncAnthropic``, over a ``tabpilot.AsyncClient``; ``confirm`` and
    ``url_policy`` may be plain or async callables. :meth:`close` is awaited."""

    def __init__(
        self,
        client: AsyncClient | None = None,
        *,
        port: int | None = None,
        token: str | None = None,
        context: str | None = None,
        trusted: bool | None = None,
        configs: BetaBrowserToolsetConfigsParam | None = None,
        confirm: BetaAsyncConfirmCallable | None = None,
        url_policy: BetaAsyncURLPolicy | NotGiven = NOT_GIVEN,
        file_policy: BetaFilePolicy | None = None,
        tool_configs: BetaToolConfigs | None = None,
    ) -> None:
        super().__init__(
            configs=configs,
            confirm=confirm,
            url_policy=url_policy,
            file_policy=file_policy,
            tool_configs=tool_configs,
        )
        self._owns_client = client is None
        self.client = (
            client if client is not None else AsyncClient(port, token=token, context=context)
        )
        self._url_policy = url_policy
        self._session = Session(trusted=trusted, policed=not isinstance(url_policy, NotGiven))
        self._tabs: list[Any] = []

    async def _run(self, steps: Steps[T], context: BetaToolsetCallContext) -> T:
        answer: Any = None
        try:
            while True:
                request = steps.send(answer)
                if isinstance(request, Call):
                    answer = await self.client.envelope(request.method, request.params)
                else:
                    answer = await self._allows(request, context)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    async def _allows(self, check: PolicyCheck, context: BetaToolsetCallContext) -> bool:
        policy = self._url_policy
        if isinstance(policy, NotGiven):
            return True
        try:
            returned: object = policy(url_context(context, check), check.url)
            if inspect.isawaitable(returned):
                returned = await returned
        except Exception:
            return False
        return returned is None

    async def _browser_state(self, context: BetaToolsetCallContext) -> BetaBrowserState:
        try:
            state = await self._run(self._session.report(), context)
        except Exception:  # the SDK ends the run on a failed report: keep it going
            return last_state(self._tabs, self._session)
        self._tabs = list(state.tabs)
        return state

    async def close(self) -> None:
        """Close the toolset (the SDK's), then the client it made."""
        await super().close()
        if self._owns_client:
            await self.client.aclose()


def _sync_member(name: str, steps: Callable[[Session, Any], Steps[Any]]) -> Callable[..., Any]:
    def member(self: Browser, context: BetaToolsetCallContext, input: Any) -> Any:
        return self._run(steps(self._session, input), context)

    member.__name__ = member.__qualname__ = name
    member.__doc__ = f"The toolset's {name}, on tabpilot's tools (tabpilot.claude.members)."
    return member


def _async_member(name: str, steps: Callable[[Session, Any], Steps[Any]]) -> Callable[..., Any]:
    async def member(self: AsyncBrowser, context: BetaToolsetCallContext, input: Any) -> Any:
        return await self._run(steps(self._session, input), context)

    member.__name__ = member.__qualname__ = name
    member.__doc__ = f"The toolset's {name}, on tabpilot's tools (tabpilot.claude.members)."
    return member


# The SDK offers the model a member a class overrides, and checks each is `def` on the blocking
# class and `async def` on the async one when an instance is made.
for _name, _steps in MEMBERS.items():
    setattr(Browser, _name, _sync_member(_name, _steps))
    setattr(AsyncBrowser, _name, _async_member(_name, _steps))
