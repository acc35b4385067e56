"""What every command shares: the project's root and config (``Obj``), running a stage and printing
its summary (``run_stage``), and turning any failure into one line and exit status 1 (``guard``)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

import click

from pipeline.config import Config, ConfigError, load

log = logging.getLogger("pipeline")


class Obj:
    """The options of the command group: the project root, a config file, verbosity."""

    def __init__(self, root: Path, config_file: Path | None, verbose: bool):
        self.root = root
        self.config_file = config_file
        self.verbose = verbose

    def config(self, **overrides: dict) -> Config:
        return load(self.root, self.config_file, overrides)


def fail(message: str) -> None:
    click.echo(f"paper-trends: error: {message}", err=True)
    sys.exit(1)


def run_stage(stage_run: Callable, cfg: Config, force: bool, **options) -> None:  # noqa: ANN003
    """Run a stage (its module's ``run``) and log its summary line."""
    result = stage_run(cfg, force=force, **options)
    log.info(result.summary())


def guard(obj: Obj, fn, *args) -> None:  # noqa: ANN001
    """Run ``fn`` holding the root's lock (one writer per root); known and unknown failures alike
    become one line and exit status 1."""
    from pipeline.stage import root_lock

    try:
        context = click.get_current_context(silent=True)
        with root_lock(obj.root, context.command_path if context else "paper-trends"):
            fn(*args)
    except click.ClickException:
        raise
    except ConfigError as exc:
        fail(f"config: {exc}")
    except KeyboardInterrupt:
        fail("interrupted; outputs are written atomically, so nothing half-written was left")
    except Exception as exc:  # noqa: BLE001 - the CLI's job is to make every failure one clear line
        if obj.verbose:
            raise
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        known = type(exc).__module__.startswith("pipeline")
        fail(message if known else f"{type(exc).__name__}: {message} (--verbose shows the traceback)")


def with_options(options):  # noqa: ANN001
    """Apply a list of click options to a command (options shared by several commands)."""
    def decorate(fn):  # noqa: ANN001
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate
