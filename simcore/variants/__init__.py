"""Registry of the games scopasim plays."""

from __future__ import annotations

from simcore.errors import ConfigError, shown
from simcore.variants import escoba, foracio, kaszino, scopa, scopone, skopa
from simcore.variants.base import RuleKey, Rules, VariantSpec

VARIANTS: dict[str, VariantSpec] = {
    spec.name: spec for spec in (scopa.SPEC, kaszino.SPEC, foracio.SPEC, skopa.SPEC, scopone.SPEC, escoba.SPEC)
}


def get_variant(name: str) -> VariantSpec:
    """The variant called ``name``, or a ConfigError listing the known ones."""
    if name in VARIANTS:
        return VARIANTS[name]
    known = ", ".join(VARIANTS)
    raise ConfigError(f"unknown variant {shown(name)} (known variants: {known})")


__all__ = ["VARIANTS", "RuleKey", "Rules", "VariantSpec", "get_variant"]
