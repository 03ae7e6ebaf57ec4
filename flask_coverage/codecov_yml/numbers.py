"""How a ``codecov.yml`` shows a percentage (``coverage.precision``, ``coverage.round``):
:class:`Numbers`. Pure: no Flask, no database.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext

#: Significant digits of the ratios: enough for ``coverage.precision``'s 99 decimals.
PRECISION = 128
_ROUNDING = {"down": ROUND_FLOOR, "up": ROUND_CEILING, "nearest": ROUND_HALF_UP}


@dataclass(frozen=True)
class Numbers:
    """How the YAML shows a percentage (``coverage.precision``, ``coverage.round``)."""

    precision: int = 2
    rounding: str = "down"

    def show(self, value: Decimal) -> str:
        with localcontext() as context:
            context.prec = PRECISION
            return str(value.quantize(Decimal(1).scaleb(-self.precision), rounding=_ROUNDING[self.rounding]))

    def signed(self, value: Decimal) -> str:
        text = self.show(value)
        return text if text.startswith("-") else "+" + text
