# What the comparison tells its user as it goes, and the machine's load
# (uptime) that the results record next to their timings.

import subprocess


def log(msg):
    print(msg, flush=True)


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return ""
