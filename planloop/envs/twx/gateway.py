"""A TextWorld Express game's Java process: started out of the reach of the signals a
terminal or a job manager sends to the whole process group, stopped once.

TextWorld Express starts its Java simulator in the caller's process group, so Ctrl-C or
a SIGTERM to the group stops Java too, at once, while Python is still handling the
signal: the game's pending call ends in a py4j network error and its traceback (exit 1)
instead of the interrupt (exit 130 / 143). :func:`start_game` starts the same simulator
in a process group of its own (py4j's ``create_new_process_group``), so that a signal
reaches Python only; Java still ends with Python, as py4j's ``die_on_exit`` has it end
when its standard input closes (Python's exit, a SIGKILL included), and
:func:`shut_down` stops it at ``close``. An interrupt raised inside a py4j call is no
better: py4j catches it, fails on it (an AttributeError) and logs a traceback, so the
game's calls in the main thread run under :func:`signals_held`, which handles a SIGINT
or SIGTERM once the call returns (a start takes about a second)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

SHUTDOWN_SECONDS = 5.0  # how long a game's Java process is given to exit


@contextmanager
def signals_held() -> Iterator[None]:
    """In the main thread, SIGINT and SIGTERM are held while the block runs, then
    handled as they would have been (their handler called, or their default action);
    elsewhere (signals reach the main thread only) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    handlers: dict[int, Any] = {
        int(sig): handler
        for sig in (signal.SIGINT, signal.SIGTERM)
        if (handler := signal.getsignal(sig)) not in (signal.SIG_IGN, None)
    }
    for sig in handlers:
        signal.signal(sig, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        for signum in dict.fromkeys(held):
            handler = handlers[signum]
            if callable(handler):
                handler(signum, None)
            else:  # SIG_DFL, restored: the default action now
                os.kill(os.getpid(), signum)


def start_game(step_limit: int) -> Any:
    """A ``textworld_express.TextWorldExpressEnv`` with ``envStepLimit=step_limit``, its
    Java process in a process group of its own. A start that fails or is interrupted
    stops the process it started and leaves no half-made game behind."""
    import tempfile

    from py4j.java_gateway import (
        CallbackServerParameters,
        GatewayParameters,
        JavaGateway,
        launch_gateway,
    )
    from textworld_express import textworld_express as twx

    game = twx.TextWorldExpressEnv.__new__(twx.TextWorldExpressEnv)
    game.close = lambda: None  # what the package's __del__ calls, until the game is whole
    process = None
    try:
        port, process = launch_gateway(
            classpath=twx.JAR_PATH,
            die_on_exit=True,
            cwd=twx.BASEPATH,
            javaopts=["-Xverify:none"],
            return_proc=True,
            create_new_process_group=True,
        )
        game._gateway = gateway = JavaGateway(
            gateway_parameters=GatewayParameters(auto_field=True, port=port),
            callback_server_parameters=CallbackServerParameters(port=0, daemonize=True),
            java_process=process,
        )
        python_port = gateway.get_callback_server().get_listening_port()
        server = gateway.java_gateway_server
        server.resetCallbackClient(server.getCallbackClient().getAddress(), python_port)
        game.server = gateway.jvm.textworldexpress.runtime.PythonInterface()
    except BaseException:  # an interrupt too: the process must not outlive the start
        if "_gateway" in game.__dict__:
            try:
                game._gateway.shutdown()
            except Exception:  # py4j's own errors on a gateway half made
                pass
        if process is not None:
            process.kill()
            process.wait()
            _close_pipes(process)
        raise
    # the rest of the package's constructor, as it is written there
    game.lastStepScore = 0
    game.envStepLimit = step_limit
    game.runHistory = []
    game.seed, game.gameName, game.gameParams = None, None, ""
    game.gameFold, game.generateGoldPath = "train", False
    game._obj_tree_tempfile = tempfile.NamedTemporaryFile()
    del game.close  # the package's own again, which shut_down replaces
    return game


def shut_down(game) -> None:
    """Stop a ``TextWorldExpressEnv``'s Java process and close its pipes. The package's
    own ``close`` is not idempotent (its ``__del__`` calls it again and writes to the
    closed process: a BrokenPipeError at exit) and leaves the pipes open (a
    ResourceWarning), so this does the same work once and makes the package's a no-op."""
    gateway = getattr(game, "_gateway", None)
    if gateway is None:
        return
    game.close = lambda: None  # what the package's __del__ calls
    process = getattr(gateway, "java_process", None)
    try:
        gateway.shutdown()
    except Exception:  # py4j's own errors on a gateway already gone
        pass
    if process is None:
        return
    try:
        if process.poll() is None:
            process.stdin.write(b"\n")  # how the package tells the Java side to exit
            process.stdin.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass
    try:
        process.wait(timeout=SHUTDOWN_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    _close_pipes(process)


def _close_pipes(process: subprocess.Popen) -> None:
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()
