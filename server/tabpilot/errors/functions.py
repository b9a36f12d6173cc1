"""The function registry's errors: a function that does not parse, is not defined, or one too many
(:mod:`tabpilot.errors` draws the tree)."""

from __future__ import annotations

from tabpilot.errors._base import RequestRefused


class InvalidFunction(RequestRefused):
    code, status = "invalid_function", 400
    meaning = (
        "eval_define_function's source is not one function, or not valid JavaScript; the message "
        "gives the position (`error.data`: line, column)."
    )
    default_message = (
        "The source is not one valid function. Send one function, such as (a, b) => a + b, and "
        "define it again."
    )


class FunctionNotFound(RequestRefused):
    code, status = "function_not_found", 404
    meaning = "No function of that name is defined in this daemon (it forgets them on restart)."
    default_message = (
        "No function of that name is defined. eval_list_functions lists them; define it with "
        "eval_define_function."
    )


class TooManyFunctions(RequestRefused):
    code, status = "too_many_functions", 409
    meaning = "The daemon holds 100 functions, its limit; remove one first."
    default_message = (
        "The daemon holds as many functions as it may (100). Remove one with "
        "eval_remove_function, then define this one again."
    )
