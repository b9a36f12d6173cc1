"""A fake extension on its own event loop thread, for tests whose own code is synchronous
(hypothesis drives schemathesis synchronously)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from tests.support import Daemon, FakeExtension, Handler


@contextlib.contextmanager
def fake_extension_thread(
    daemon: Daemon, handler: Handler | None = None, **kwargs: Any
) -> Iterator[FakeExtension]:
    """A connected FakeExtension served by a background loop until the block ends."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fake-extension", daemon=True)
    thread.start()
    try:

        async def start() -> FakeExtension:
            return await daemon.extension(handler, **kwargs).connect()

        fake = asyncio.run_coroutine_threadsafe(start(), loop).result(15)
        try:
            yield fake
        finally:
            asyncio.run_coroutine_threadsafe(fake.close(), loop).result(15)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(15)
        loop.close()
