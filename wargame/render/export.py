"""The event log as files: CSV with the dice as JSON lists.

Examples:
    >>> import pandas as pd
    >>> log_csv(pd.DataFrame({"dice": [(6, 1), None]})).decode().split()
    ['dice', '"[6,', '1]"', '""']
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["log_csv"]


def log_csv(log: Any) -> bytes:
    """The event log as CSV, dice as a JSON list (``[6, 1]``, empty when no roll)
    so that any CSV reader gets them back with ``json.loads``.

    Examples:
        >>> import pandas as pd
        >>> log_csv(pd.DataFrame({"dice": [(6, 1), None]})).decode().split()
        ['dice', '"[6,', '1]"', '""']
    """
    dice = log["dice"].map(
        lambda d: json.dumps([int(v) for v in d]) if isinstance(d, tuple | list) else ""
    )
    return log.assign(dice=dice).to_csv(index=False).encode("utf-8")  # type: ignore[no-any-return]
