"""A bot for the platform's tests: a Python syntax error, so it dies before saying ready."""

import json


def broken(:
    return json
