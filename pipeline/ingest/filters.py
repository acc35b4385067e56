"""Which records to keep while reading: by category and by date."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from pipeline import dates
from pipeline.config import ConfigError, IngestConfig


@dataclass
class Filter:
    """The --category / --since / --until filter; records it cannot judge are kept."""

    categories: frozenset[str] = frozenset()
    since: pd.Timestamp | None = None
    until: pd.Timestamp | None = None  # exclusive: the day after --until

    @classmethod
    def from_config(cls, cfg: IngestConfig) -> Filter:
        if cfg.since and cfg.until and cfg.since > cfg.until:
            raise ConfigError(f"--since {cfg.since} is after --until {cfg.until}: no day lies between them")
        day = pd.Timedelta(days=1)
        return cls(
            categories=frozenset(cfg.categories),
            since=pd.Timestamp(cfg.since, tz="UTC") if cfg.since else None,
            until=pd.Timestamp(cfg.until, tz="UTC") + day if cfg.until else None,
        )

    def keeps(self, rec: dict) -> bool:
        if rec["error"] is not None:
            return True
        if self.categories:
            listed = set(rec["categories"]) | ({rec["primary_category"]} if rec["primary_category"] else set())
            if listed and not listed & self.categories:
                return False
        if self.since is not None or self.until is not None:
            when = dates.parse_datetime(rec["published"]) or dates.parse_datetime(rec["announced"])
            if when is not None:
                if self.since is not None and when < self.since:
                    return False
                if self.until is not None and when >= self.until:
                    return False
        return True
