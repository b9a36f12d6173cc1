"""HTTP responses of the envelope (:mod:`tabpilot.envelope` builds it): JSON with the request id
in a header, and a screenshot's raw image when the caller's Accept asks for one."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from tabpilot.envelope import REQUEST_ID_HEADER, dumps, failure_body, success_body
from tabpilot.errors import InvalidRequest, TabpilotError
from tabpilot.protocol import ResultFrame, TabInfo
from tabpilot.tools.screenshot import image_bytes, image_of

#: The OpenAPI content of a route that may answer an image.
OPENAPI_IMAGES = {
    "image/png": {"schema": {"type": "string", "format": "binary"}},
    "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
}


def render(
    body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """A JSON response of ``body`` carrying its request id in the X-Request-ID header."""
    return Response(
        dumps(body),
        status_code=status,
        media_type="application/json",
        headers={REQUEST_ID_HEADER: str(body["request_id"]), **(headers or {})},
    )


def render_success(
    request_id: str,
    result: Any,
    *,
    result_type: str | None = None,
    tab: TabInfo | dict[str, Any] | None = None,
    duration_ms: float = 0.0,
) -> Response:
    """HTTP 200 with the success envelope."""
    body = success_body(
        request_id, result, result_type=result_type, tab=tab, duration_ms=duration_ms
    )
    return render(body, 200)


def render_error(request_id: str, error: TabpilotError) -> Response:
    """The failure envelope of ``error`` with the error's own HTTP status."""
    return render(failure_body(request_id, error), error.status, error.headers)


def raw_response(answer: ResultFrame, request_id: str, header: str) -> Response:
    """The image of ``answer`` as the response body, its size and scale in headers."""
    result = answer.result if isinstance(answer.result, dict) else {}
    envelope = {"success": True, "result": result}
    found = image_of(envelope)
    if found is None:
        raise InvalidRequest("The extension's answer carries no image.")
    data = image_bytes(result)
    headers = {
        header: request_id,
        "X-Image-Width": str(result.get("width")),
        "X-Image-Height": str(result.get("height")),
        "X-Image-Scale": str(result.get("scale")),
        "X-Captured": str(result.get("captured")).encode("ascii", "replace").decode(),
    }
    return Response(data, media_type=found[1], headers=headers)
