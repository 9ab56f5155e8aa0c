# What the comparison tells its user as it goes, and the machine's load
# (uptime) that the results record next to their timings.

import subprocess
import sys


def log(msg):
    print(msg, flush=True)


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return ""


def run_checked(tool, cmd, cwd, out=None):
    """Runs `cmd` in `cwd`, logged as "tool: command"; keeps its stdout and
    stderr in the file `out` if given; exits naming the command and showing
    the end of its stderr if it fails. Returns its stdout."""
    print(f"{tool}: {' '.join(cmd)}", flush=True)
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if out:
        with open(out, "w") as f:
            f.write(done.stdout + done.stderr)
    if done.returncode != 0:
        sys.exit(f"{tool}: exit {done.returncode}: {' '.join(cmd)}\n"
                 f"{done.stderr[-2000:]}")
    return done.stdout
