#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# screenshot.sh URL OUT.png [WIDTH,HEIGHT] - a PNG of the page at URL as
# headless Chromium renders it in a window of WIDTH x HEIGHT (default
# 1600,900), for the images of Documentation/ (the pages of
# `go tool trace` serving a trace of gotrace, e.g.
# Documentation/images/go-merge-*.png).
#
# The picture is taken once the page has loaded and, on the timeline of
# `go tool trace` (/trace?...), once the viewer has imported its trace
# and drawn it.  Such a URL may end in #START:END, milliseconds from the
# start of the trace: the viewer marks that range, the picture zooms to
# it.  SCREENSHOT_JS, if set, is a JavaScript expression run in the page
# just before the picture (awaited if a promise), e.g. to select an event
# so that the viewer's lower panel describes it.  SCREENSHOT_BUDGET caps
# the whole in milliseconds (default 60000).
#
# Chromium is no tool of the build or of the tests, and the host stays as
# it is: Debian 12's chromium and chromium-common, and the libraries they
# need that the host lacks, are downloaded from the host's own apt sources
# and unpacked with dpkg -x into $GT_STORE/chromium (the repository's
# .cache/ unless GT_STORE is set) on first use, the way go127.sh unpacks
# Go 1.27 (about 125 MB of packages, 400 MB unpacked).  The browser runs
# from there, its libraries found through LD_LIBRARY_PATH, and is driven
# by python3's standard library (below).
set -eu

# shellcheck source=../selftests/vm/lib.sh
. "$(dirname "$0")/../selftests/vm/lib.sh"

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 URL OUT.png [WIDTH,HEIGHT]" >&2
	exit 2
fi
url=$1 out=$2 size=${3:-1600,900}
case $size in
[0-9]*,[0-9]*) ;;
*) gt_die "screenshot: size '$size' is not WIDTH,HEIGHT" ;;
esac

CHROMIUM_DIR=$GT_STORE/chromium
# The binary itself: /usr/bin/chromium is a wrapper script that reads
# /etc/chromium.d, which the host does not have.
CHROMIUM=$CHROMIUM_DIR/usr/lib/chromium/chromium

# Every directory of the unpacked tree that holds a shared library, not
# only the multiarch one: libpulse0 keeps libpulsecommon in a pulseaudio/
# subdirectory, found through a RUNPATH that names the host's /usr/lib.
chromium_libs() {
	# (Chromium's own directory and GTK's modules are no search path.)
	find "$CHROMIUM_DIR" \( -path "$CHROMIUM_DIR/usr/lib/chromium" -o \
		-path '*/gtk-3.0' \) -prune -o -name 'lib*.so*' -printf '%h\n' |
		sort -u | paste -sd:
}

chromium_env() {
	local libs
	libs=$(chromium_libs)
	LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"
}

chromium_works() {
	[ -x "$CHROMIUM" ] &&
		chromium_env "$CHROMIUM" --version 2>/dev/null | grep -q '^Chromium '
}

# chromium_packages: chromium and what of its dependencies the host does
# not have, as apt would install them (no recommends: the browser runs
# headless, without the desktop's extras); the simulation changes
# nothing.  Where the host has them all (or apt cannot tell), the two
# packages of the browser alone.
chromium_packages() {
	local pkgs
	pkgs=$(apt-get install -s -q --no-install-recommends chromium 2>/dev/null |
		awk '$1 == "Inst" { print $2 }')
	echo "${pkgs:-chromium chromium-common}"
}

if ! chromium_works; then
	gt_log "screenshot: fetching Debian's chromium into $CHROMIUM_DIR"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/chromium.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	pkgs=$(chromium_packages)
	# shellcheck disable=SC2086 # one word a package
	if ! (cd "$tmp" && gt_apt_download $pkgs); then
		# A stale list names a version the mirror no longer has (the
		# browser gets security updates often): ask again once.
		gt_apt_refresh
		pkgs=$(chromium_packages)
		rm -f "$tmp"/*.deb
		# shellcheck disable=SC2086
		(cd "$tmp" && gt_apt_download $pkgs) ||
			gt_die "screenshot: cannot download" $pkgs
	fi
	rm -rf "$CHROMIUM_DIR.tmp"
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$CHROMIUM_DIR.tmp"
	done
	rm -rf "$CHROMIUM_DIR"
	mv "$CHROMIUM_DIR.tmp" "$CHROMIUM_DIR"
	rm -rf "$tmp"
	trap - EXIT
	chromium_works || gt_die "screenshot: $CHROMIUM does not run"
fi

# A profile of its own for every run: Chromium would otherwise create
# ~/.config/chromium, and two runs at once would share (and lock) it.
profile=$(mktemp -d "${TMPDIR:-/tmp}/chromium-profile.XXXXXX")
trap 'rm -rf "$profile"' EXIT
# No older picture left behind to pass for this one if this one fails.
rm -f "$out"

# Chromium's own --screenshot takes the picture at the load event, before
# the trace viewer has fetched and imported its JSON; with
# --virtual-time-budget it stops in the middle of the import ("Importing
# clock sync markers"), whose steps wait for animation frames.  So the
# browser is driven over the DevTools protocol on a pipe (fds 3 and 4 of
# --remote-debugging-pipe, no port and no WebSocket client needed):
# navigate, wait for the load event and, on a trace viewer page, for the
# imported model and its first viewport, then capture.
#
# A trace viewer URL of `go tool trace` may end in #START:END, two times
# in milliseconds from the start of the trace: the viewer marks that
# range itself (its task pages link so); the picture also zooms to it,
# which the viewer has no URL for.
#
# Chromium's chatter (D-Bus, GPU) goes to a log, its end shown on
# failure only; its temporary files (a singleton socket in $TMPDIR) go
# with the profile.
if ! TMPDIR=$profile chromium_env python3 - "$CHROMIUM" "$url" "$out" \
	"$size" "$profile" "${SCREENSHOT_BUDGET:-60000}" <<'EOF'
import base64, json, os, select, subprocess, sys, time

chrome, url, out, size, profile, budget = sys.argv[1:7]
width, height = (int(x) for x in size.split(","))
deadline = time.monotonic() + int(budget) / 1000
extra_js = os.environ.get("SCREENSHOT_JS", "")

# The page is ready when loaded and, for the trace viewer, once the track
# view has its model and has set its first viewport (it polls every
# 250 ms, and that first viewport would undo a zoom made before it).
READY = """(() => {
  if (document.readyState !== "complete") return false;
  if (!document.querySelector("link[rel=import][href*=trace_viewer]")) return true;
  const v = document.getElementById("trace-viewer");
  const tv = v && v.trackView;
  return !!(tv && tv.model && tv.pollIfViewportAttachedInterval_ === undefined);
})()"""

# The viewer warns in a yellow bar that it runs on the web components
# polyfill (every browser today does): a note about the viewer, not the
# trace, hidden as its own Hide button would.  Then the zoom to #START:END.
ZOOM = """(() => {
  const v = document.getElementById("trace-viewer");
  if (!v || !v.trackView) return "";
  const bar = Polymer.dom(v.root).querySelector("#polyfill-warning");
  if (bar) bar.clearMessages();
  const m = /^#([0-9.]+):([0-9.]+)$/.exec(location.hash);
  if (!m) return "";
  const tv = v.trackView, c = tv.modelTrackContainer_;
  c.updateCanvasSizeIfNeeded_();
  const dt = new tr.ui.TimelineDisplayTransform();
  dt.set(tv.viewport.currentDisplayTransform);
  dt.xSetWorldBounds(parseFloat(m[1]), parseFloat(m[2]), c.canvas.width);
  tv.viewport.setDisplayTransformImmediately(dt);
  return m[1] + ".." + m[2] + " ms";
})()"""

# Two frames and a little more, for the canvas to be drawn again.
SETTLE = """new Promise(done => requestAnimationFrame(() =>
  requestAnimationFrame(() => setTimeout(done, 300))))"""


class Fail(Exception):
    pass


cmd_r, cmd_w = os.pipe()
res_r, res_w = os.pipe()


def child_fds():
    # Chromium reads the protocol from fd 3 and writes it to fd 4.
    a, b = os.dup(cmd_r), os.dup(res_w)
    os.dup2(a, 3)
    os.dup2(b, 4)


log = open(os.path.join(profile, "log"), "wb")
proc = subprocess.Popen(
    [chrome, "--headless=new", "--no-sandbox", "--disable-gpu",
     "--hide-scrollbars", "--no-first-run", "--no-default-browser-check",
     "--user-data-dir=" + profile, "--window-size=%d,%d" % (width, height),
     "--remote-debugging-pipe", "about:blank"],
    stdin=subprocess.DEVNULL, stdout=log, stderr=log,
    preexec_fn=child_fds, pass_fds=(3, 4))
os.close(cmd_r)
os.close(res_w)

buf = bytearray()
queued = []
last_id = 0


def recv():
    global buf
    while b"\0" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            raise Fail("timed out after %s ms (SCREENSHOT_BUDGET)" % budget)
        if select.select([res_r], [], [], left)[0]:
            chunk = os.read(res_r, 1 << 20)
            if not chunk:
                raise Fail("Chromium exited")
            buf += chunk
    msg, _, rest = bytes(buf).partition(b"\0")
    buf = bytearray(rest)
    return json.loads(msg)


def send(method, params=None, session=None):
    global last_id
    last_id += 1
    msg = {"id": last_id, "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    data = json.dumps(msg).encode() + b"\0"
    while data:
        data = data[os.write(cmd_w, data):]
    while True:
        m = recv()
        if m.get("id") == last_id:
            if "error" in m:
                raise Fail("%s: %s" % (method, m["error"].get("message")))
            return m["result"]
        queued.append(m)


def wait_event(method):
    while True:
        m = queued.pop(0) if queued else recv()
        if m.get("method") == method:
            return m


def evaluate(expr, session):
    r = send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                  "awaitPromise": True}, session)
    if "exceptionDetails" in r:
        raise Fail("page script: %s" % r["exceptionDetails"].get("text"))
    return r["result"].get("value")


try:
    targets = send("Target.getTargets")["targetInfos"]
    page = next(t["targetId"] for t in targets if t["type"] == "page")
    sid = send("Target.attachToTarget",
               {"targetId": page, "flatten": True})["sessionId"]
    send("Emulation.setDeviceMetricsOverride",
         {"width": width, "height": height, "deviceScaleFactor": 1,
          "mobile": False}, sid)
    send("Page.enable", None, sid)
    nav = send("Page.navigate", {"url": url}, sid)
    if nav.get("errorText"):
        raise Fail("%s: %s" % (url, nav["errorText"]))
    wait_event("Page.loadEventFired")
    while not evaluate(READY, sid):
        if time.monotonic() > deadline:
            raise Fail("timed out waiting for the page to draw")
        time.sleep(0.1)
    zoomed = evaluate(ZOOM, sid)
    if zoomed:
        print("screenshot: zoomed to " + zoomed, file=sys.stderr)
    if extra_js:
        evaluate(extra_js, sid)
    evaluate(SETTLE, sid)
    shot = send("Page.captureScreenshot", {"format": "png"}, sid)["data"]
    with open(out, "wb") as f:
        f.write(base64.b64decode(shot))
    try:
        send("Browser.close")
    except Fail:
        pass
except Fail as e:
    print("screenshot: %s" % e, file=sys.stderr)
    sys.exit(1)
finally:
    # Chromium quits when its end of the pipe closes (after a failure
    # Browser.close was never sent); SIGTERM if it does not, which also
    # lets it clean up.
    os.close(cmd_w)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.terminate()
        proc.wait()
EOF
then
	tail -n 20 "$profile/log" >&2
	gt_die "screenshot: no picture of $url"
fi
