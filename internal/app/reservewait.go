package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// ReserveWaitRequest is a reservation that, with Wait, queues for paths
// another droid holds instead of failing: the reserve command's --wait and
// the MCP reserve tool's wait.
type ReserveWaitRequest struct {
	ReserveRequest
	Wait    bool   `json:"wait,omitempty" jsonschema:"when the paths are held, join the queue for them and wait until they are yours (first come first served, across clones) instead of failing with a conflict; give up after timeout"`
	Timeout string `json:"wait_timeout,omitempty" jsonschema:"with wait: give up after this long, e.g. 30s or 10m (default 50s, at most 1h), and leave the queue; a timeout is a conflict error (code 5) naming what still stands ahead"`
	// MaxWait, when set, is the longest timeout a caller may ask for (the
	// MCP tool's bound); a wait then needs a timeout.
	MaxWait time.Duration `json:"-"`
	// Queued, when set, is told once when the request joins the queue,
	// with what stands ahead of it (the command line prints it).
	Queued func(ahead []reservations.Conflict) `json:"-"`
}

// ReserveWaitResult is what reserve granted, and how long it waited in
// the queue for it.
type ReserveWaitResult struct {
	*ReserveResult
	// Waited is how long the request waited in the queue: "" when it was
	// granted without queueing.
	Waited string `json:"waited,omitempty"`
}

// WaitSyncInterval is how often a waiter with a remote syncs while it
// waits: it publishes its place (and its renewals) and brings in the
// releases of other clones. Any sync in its clone (or a write in any
// worktree) wakes it at once too.
const WaitSyncInterval = 10 * time.Second

// ReserveQueued is Reserve, and with Wait the queue: a request the paths'
// holders refuse joins the queue and is granted when the holders release
// or expire and every earlier place that contests it has been served or
// has lapsed. A place is renewed while the waiter waits, so that of a
// waiter that dies lapses on its own (reservations.WaitLease); a waiter
// that gives up (timeout, a signal, a closed call) leaves the queue.
var ReserveQueued = UseCase[ReserveWaitRequest, *ReserveWaitResult]{Name: "reserve", run: reserveQueued}

func reserveQueued(e *Env, r ReserveWaitRequest) (*ReserveWaitResult, error) {
	if !r.Wait {
		if r.Timeout != "" {
			return nil, usagef("reserve", "%[1]s says how long %[2]s waits; add %[2]s, or leave out %[1]s", wording.Param("wait_timeout"), wording.Param("wait"))
		}
		res, err := reserve(e, r.ReserveRequest)
		return wrapReserve(res), err
	}
	switch {
	case r.Force:
		return nil, usagef("reserve", "%s queues for the paths and %s takes them now; choose one", wording.Param("wait"), wording.Param("force"))
	case r.Shared:
		return nil, usagef("reserve", "%[1]s queues for an exclusive reservation; a %[2]s one is granted at once, so leave out %[1]s", wording.Param("wait"), wording.Param("shared"))
	case r.Steal:
		return nil, usagef("reserve", "%s queues behind a live holder and %s takes from a silent one now; choose one", wording.Param("wait"), wording.Param("steal"))
	}
	timeout, err := WaitTimeout("reserve", "wait_timeout", r.Timeout)
	if err != nil {
		return nil, err
	}
	if r.MaxWait > 0 && (timeout <= 0 || timeout > r.MaxWait) {
		return nil, usagef("reserve", "%s %q: a wait here lasts at most %s; to wait longer, call again when it times out (the queue keeps no place between calls)", wording.Param("wait_timeout"), r.Timeout, r.MaxWait)
	}
	ctx, cancel := e.waitContext(timeout)
	defer cancel()
	if errors.Is(ctx.Err(), context.Canceled) { // its caller gone already: nothing taken for nobody
		return nil, wording.Errorf("%s: stopped before the paths were granted; nothing was reserved", wording.Switch("wait"))
	}
	res, err := reserve(e, r.ReserveRequest)
	conflict, ok := errors.AsType[*reservations.ConflictError](err)
	if !ok {
		return wrapReserve(res), err // granted, or a failure no wait mends
	}
	w, err := e.joinQueue(r)
	if err != nil {
		return nil, err
	}
	defer w.watch.Close()
	if r.Queued != nil {
		r.Queued(conflict.Conflicts)
	}
	return w.wait(ctx, timeout)
}

func wrapReserve(res *ReserveResult) *ReserveWaitResult {
	if res == nil {
		return nil
	}
	return &ReserveWaitResult{ReserveResult: res}
}

// waiter is one request waiting in the queue.
type waiter struct {
	e      *Env
	s      *store.Store
	rs     *reservations.Store
	req    reservations.Request
	notes  []string
	remote string // "" when the places and the grant stay in this clone
	watch  *store.Watcher
	start  time.Time
	// lastSyncErr is the last sync failure warned of, so a remote that
	// stays down is told once, not every interval.
	lastSyncErr string
}

// joinQueue writes the request's places, publishes them when there is a
// remote, and starts watching the reservations for changes. The watch
// starts before the places are written, so no change slips in between.
func (e *Env) joinQueue(r ReserveWaitRequest) (*waiter, error) {
	// --force and --shared never wait (reserveQueued): the request is an
	// exclusive one, as the grant it waits for.
	req, s, notes, err := e.reserveRequest(r.ReserveRequest)
	if err != nil {
		return nil, err
	}
	w := &waiter{e: e, s: s, rs: &reservations.Store{S: s}, notes: notes, start: time.Now(), req: req}
	if !r.Offline {
		w.remote = ledgersync.ConfiguredRemote(s)
	}
	w.watch = s.Watch(records.ReservationsFile)
	if w.req.Places, err = w.rs.Join(w.req); err != nil {
		w.watch.Close()
		return nil, err
	}
	w.req.Notify = false // the holders heard once, from the first request
	w.sync()
	return w, nil
}

// wait waits until the grant, or until ctx ends (then it leaves the queue).
func (w *waiter) wait(ctx context.Context, timeout time.Duration) (*ReserveWaitResult, error) {
	now := time.Now()
	nextRenew, nextSync, retryAt := now.Add(reservations.WaitRenew), now.Add(WaitSyncInterval), now
	backoff := time.Second
	for {
		blocking, err := w.rs.Blocking(w.req, w.s.Now())
		if err != nil {
			return nil, w.leave(err.Error(), err)
		}
		if cycle, err := w.rs.WaitCycle(w.req, blocking, w.s.Now()); err != nil || cycle != nil {
			if err == nil {
				err = cycleError(cycle)
			}
			return nil, w.leave("would wait for a droid that waits for it", err)
		}
		if len(blocking) == 0 && !time.Now().Before(retryAt) {
			res, err := w.grant()
			switch {
			case err == nil:
				w.granted()
				return &ReserveWaitResult{ReserveResult: res, Waited: time.Since(w.start).Round(time.Millisecond).String()}, nil
			case !errors.As(err, new(*reservations.ConflictError)) && !isTransient(err):
				return nil, w.leave("failed: "+err.Error(), err)
			}
			// Someone got there first, or a place ahead came in with
			// the fetch, or the remote is down: wait on, and ask again no
			// sooner than backoff from now.
			retryAt, backoff = time.Now().Add(backoff), min(2*backoff, WaitSyncInterval)
		}
		wake := time.Until(nextRenew)
		if w.remote != "" {
			wake = min(wake, time.Until(nextSync))
		}
		if len(blocking) == 0 {
			wake = min(wake, time.Until(retryAt))
		}
		for _, b := range blocking {
			wake = min(wake, endOf(b.Held).Sub(w.s.Now())+time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return nil, w.gaveUp(ctx, timeout)
		case <-w.watch.C:
		case <-time.After(max(wake, 10*time.Millisecond)): // collected unfired (Go 1.23)
		}
		if now := time.Now(); !now.Before(nextRenew) {
			if w.req.Places, err = w.rs.Join(w.req); err != nil {
				return nil, w.leave("failed: "+err.Error(), err)
			}
			nextRenew = now.Add(reservations.WaitRenew)
		}
		if now := time.Now(); w.remote != "" && !now.Before(nextSync) {
			w.sync()
			nextSync = time.Now().Add(WaitSyncInterval)
		}
	}
}

// endOf is when what stands ahead stops standing there: a reservation's
// expiry, a place's lapse.
func endOf(r records.Reservation) time.Time {
	if r.Status == records.ReservationWaiting {
		return reservations.PlaceEnd(r)
	}
	return r.Expiry()
}

// grant asks for the paths as the waiter: through the remote (fetch,
// check, compare-and-swap push) when there is one.
func (w *waiter) grant() (*ReserveResult, error) {
	out := &ReserveResult{Remote: ledgersync.ConfiguredRemote(w.s), Notes: w.notes}
	var err error
	if w.remote == "" { // no remote, or --offline: the next sync publishes it
		out.Result, err = w.rs.Reserve(w.req)
		out.Published = out.Remote == ""
	} else {
		err = w.e.reservePublished(w.s, w.remote, w.req, out)
	}
	out.Conflicts = jsonline.NonNil(out.Conflicts)
	if err == nil {
		w.e.warnShortTTL(out, w.req.TTL)
	}
	return out, err
}

// sync publishes the places and brings in other clones' records; a
// failure is warned of once and waited through.
func (w *waiter) sync() {
	if w.remote == "" {
		return
	}
	err := w.e.syncWith(w.s, w.req.Droid, w.remote)
	if err != nil && err.Error() != w.lastSyncErr {
		fmt.Fprintf(w.e.Warn, "git-queen: warning: waiting without %s for now (%v); the wait goes on, and tries again every %s\n",
			w.remote, err, WaitSyncInterval)
	}
	w.lastSyncErr = ""
	if err != nil {
		w.lastSyncErr = err.Error()
	}
}

// gaveUp leaves the queue when ctx ended: a timeout is a conflict (exit
// 5) naming what still stood ahead.
func (w *waiter) gaveUp(ctx context.Context, timeout time.Duration) error {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return w.leave("stopped", wording.Errorf("%s: stopped before the paths were granted; %s", wording.Switch("wait"), left))
	}
	blocking, _ := w.rs.Blocking(w.req, w.s.Now())
	conflict := &reservations.ConflictError{Conflicts: blocking, Now: w.s.Now()}
	return w.leave("gave up after "+timeout.String(), &QueueTimeoutError{After: timeout, Conflict: conflict})
}

// left is what leave did, for the messages that follow it.
const left = "its place in the queue was withdrawn"

// leave ends the waiter's places (and publishes that), then returns err.
func (w *waiter) leave(why string, err error) error {
	if lerr := w.rs.Leave(w.req.Places, why); lerr != nil {
		return errors.Join(err, fmt.Errorf("leaving the queue: %w (the places lapse within %s)", lerr, reservations.WaitLease))
	}
	w.sync()
	return err
}

// granted ends the places once the grant stands, and publishes that; the
// grant holds the paths meanwhile, so a failure here only warns (the
// places lapse on their own).
func (w *waiter) granted() {
	if err := w.rs.Leave(w.req.Places, "granted"); err != nil {
		fmt.Fprintf(w.e.Warn, "git-queen: warning: granted, but the place in the queue stays until it lapses (within %s): %v\n", reservations.WaitLease, err)
		return
	}
	w.sync()
}

// QueueTimeoutError is a wait that timed out: the paths were not granted,
// and the waiter left the queue. It unwraps to the conflict with what
// still stood ahead (exit 5; --json and MCP list the conflicts).
type QueueTimeoutError struct {
	After    time.Duration
	Conflict *reservations.ConflictError
}

func (e *QueueTimeoutError) Error() string { return e.Text().String() }

// Text is the message, for a front end to say in its own words; the
// conflict's advice (force) is not for a waiter, so only its listing is.
func (e *QueueTimeoutError) Text() wording.Text {
	ahead := wording.Textf(" nothing any more: reserve again")
	if len(e.Conflict.Conflicts) > 0 {
		ahead = e.Conflict.Listing()
	}
	return wording.Textf("%s: not granted within %s, and %s; still ahead:%s", wording.Switch("wait"), e.After, left, ahead)
}

func (e *QueueTimeoutError) Unwrap() error { return e.Conflict }

// isTransient says whether a failed grant may succeed later without
// anyone doing anything: the remote could not be reached for now.
func isTransient(err error) bool {
	if !errors.As(err, new(*ledgersync.UnpublishedError)) {
		return false
	}
	var remote *ledgersync.RemoteError
	return !errors.As(err, &remote) || remote.Transient()
}

// cycleError is the wait refused because it closed a cycle: a conflict
// (exit 5) that says what to release.
func cycleError(c *reservations.Cycle) error {
	return conflict(wording.Errorf("%s: %s waits for %s, which you hold, and holds %s, which you wait for: "+
		"neither wait would end before a reservation expired, so yours stopped and %s; "+
		"release %s (%s '%s') so that %s goes on, then reserve again",
		wording.Switch("wait"), c.Other, c.Waits.Pattern, c.Held.Pattern, left, c.Mine.Pattern, wording.Run("release"), c.Mine.Pattern, c.Other))
}
