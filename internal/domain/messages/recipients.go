package messages

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/wording"
	presence "github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
)

// MaxRecipients bounds a list of recipients: each name is checked, and
// each copy is a record.
const MaxRecipients = 100

// UnknownRecipientError refuses a message to droids this repository has
// never seen: no message, assignment or reservation is by or to them, and
// the roster does not list them. It is most often a typo ("anne" for
// "ann"), which would otherwise deliver to an inbox nobody reads. It comes
// wrapped in a records.InvalidError, a usage error.
type UnknownRecipientError struct {
	// Names are the unknown recipients, as given.
	Names []string
	// Near lists, for each unknown name, the known droids it is close
	// to (by edit distance, ignoring case), closest first.
	Near map[string][]string
	// Known are the other droids the repository knows (not the
	// sender), sorted.
	Known []string
}

func (e *UnknownRecipientError) Error() string { return e.Text().String() }

// Text is the refusal's message, which names the switch that lets an
// unknown name through, for a front end to say in its own words.
func (e *UnknownRecipientError) Text() wording.Text {
	var b strings.Builder
	for i, n := range e.Names {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "no droid %q has appeared in this repository", n)
		if near := e.Near[n]; len(near) > 0 {
			fmt.Fprintf(&b, " (did you mean %s?)", records.OrList(near))
		}
	}
	switch {
	case len(e.Known) == 0:
		b.WriteString("; no other droid has appeared yet")
	case len(e.Near) < len(e.Names):
		fmt.Fprintf(&b, "; known droids: %s", listUpTo(e.Known, 12))
	}
	return wording.Textf("%s\nname a droid that has sent, received, reserved or been assigned something, or list it under [droids] names in .beads/"+
		"%s; pass %s if the name is meant (a droid that has not started yet)", b.String(), schema.ConfigFile, wording.Switch("new"))
}

// recipients turns a draft's To into the droids that each get a copy, in
// the order given, each once: a droid, or @all (every droid the stores or
// the roster name but the sender). With CheckRecipients (a name a person
// or an agent typed), To is a list separated by commas (spaces around the
// names ignored), and a name the repository has never seen is refused
// unless NewRecipients says it is meant; a To that is a known droid's
// whole name is that droid, so a name with a comma, from before lists,
// still reaches its droid when its parts are not all known.
func (m *Store) recipients(d *Draft) ([]string, error) {
	if d.literalTo {
		return []string{d.To}, records.ValidateDroid(d.To)
	}
	r := roster{m: m, from: d.From, sighted: d.Sighted}
	names := []string{d.To}
	if d.CheckRecipients {
		names = strings.Split(d.To, ",") // typed: a list
	}
	if len(names) > MaxRecipients {
		return nil, records.Invalidf("%d recipients; at most %d may be listed (%s @all reaches every droid)", len(names), MaxRecipients, wording.Param("to"))
	}
	var out, unknown []string
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" || slices.Contains(out, name) {
			continue
		}
		if name == records.Broadcast {
			all, err := r.all()
			if err != nil {
				return nil, err
			}
			for _, n := range all {
				if n != d.From && !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
			continue
		}
		if err := records.ValidateDroid(name); err != nil {
			return nil, records.Invalidf("recipient: %w", err)
		}
		if d.CheckRecipients && !d.NewRecipients {
			ok, err := r.knows(name)
			if err != nil {
				return nil, err
			}
			if !ok {
				unknown = append(unknown, name)
			}
		}
		out = append(out, name)
	}
	if len(unknown) > 0 {
		all, err := r.all()
		if err != nil {
			return nil, err
		}
		if len(names) > 1 && slices.Contains(all, d.To) {
			return []string{d.To}, nil // a droid named with a comma, from before lists
		}
		e, err := r.m.unknown(unknown, all, d.From)
		if err != nil {
			return nil, err
		}
		return nil, &records.InvalidError{Err: e}
	}
	switch {
	case len(out) > 0:
		return out, nil
	case strings.Contains(d.To, records.Broadcast):
		return nil, ErrNobodyToBroadcastTo
	}
	return nil, records.Invalidf("recipient: no droid named in %q", d.To)
}

// roster answers which droids a send may reach: the sender, those the
// stores name, and those the roster file lists. The file is read only when
// the stores are not enough, so a broken one stops only the sends that
// need it.
type roster struct {
	m       *Store
	from    string
	listed  map[string]bool // nil until the file is read
	known   []string        // every droid, once all has run
	sighted func(name string, near []string)
}

// knows reports whether name is a droid the repository has seen.
func (r *roster) knows(name string) (bool, error) {
	if name == r.from {
		return true, nil
	}
	if r.known == nil { // not decoded yet: the fast ways first
		if ok, err := seen(r.m.S, name); err != nil || ok {
			return ok, err
		}
		if err := r.read(); err != nil || r.listed[name] {
			return r.listed[name], err
		}
	} else if slices.Contains(r.known, name) {
		return true, nil
	}
	if ok, err := r.onlySighted(name); err != nil || ok {
		return ok, err
	}
	// The slow, exact way: every name the stores hold, decoded.
	all, err := r.all()
	return slices.Contains(all, name), err
}

// onlySighted reports whether name is a droid known only from its
// presence records: it ran commands here, and no record names it. When
// its name is close to another droid's (records.Mistyped, among those the
// roster lists), most likely a typo that became a droid by running a
// command, sighted is told.
func (r *roster) onlySighted(name string) (bool, error) {
	p := &presence.Store{S: r.m.S}
	sightings, err := p.Sightings()
	if err != nil || !slices.ContainsFunc(sightings, func(x presence.Sighting) bool { return x.Droid == name }) {
		return false, err
	}
	if r.sighted == nil {
		return true, nil
	}
	if err := r.read(); err != nil {
		return false, err
	}
	list, err := p.List(r.m.S.Now(), slices.Collect(maps.Keys(r.listed)))
	if err != nil {
		return false, err
	}
	names := make([]string, len(list))
	for i, d := range list {
		names[i] = d.Name
	}
	if near := records.Mistyped(name, names); len(near) > 0 {
		r.sighted(name, near)
	}
	return true, nil
}

// all lists every droid the repository knows (the sender too), sorted.
func (r *roster) all() ([]string, error) {
	if r.known != nil {
		return r.known, nil
	}
	known, err := KnownDroids(r.m.S)
	if err != nil {
		return nil, err
	}
	if err := r.read(); err != nil {
		return nil, err
	}
	known = slices.AppendSeq(known, maps.Keys(r.listed))
	if r.from != "" {
		known = append(known, r.from)
	}
	slices.Sort(known)
	r.known = slices.Compact(known)
	return r.known, nil
}

// read reads the droids the team's configuration lists under [droids]
// names (roster.Config.DroidNames; no .beads/ or no file: none). A droid
// listed there may be sent messages before it has written anything.
func (r *roster) read() error {
	if r.listed != nil {
		return nil
	}
	cfg, err := presence.ReadConfig(r.m.S.WS.BeadsDir)
	if err != nil {
		return err
	}
	names, err := cfg.DroidNames()
	if err != nil {
		return err
	}
	r.listed = map[string]bool{}
	for _, n := range names {
		r.listed[n] = true
	}
	return nil
}

// listUpTo joins at most n names, then says how many more.
func listUpTo(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// Unknown says whether name is a droid this repository has never seen (as
// a recipient a send refuses): nil when it knows it, else the error a
// send would give, naming the known droids close to it. assign uses it to
// warn of an issue given to a name nobody answers to.
func (m *Store) Unknown(name string) (*UnknownRecipientError, error) {
	r := roster{m: m}
	if ok, err := r.knows(name); err != nil || ok {
		return nil, err
	}
	all, err := r.all()
	if err != nil {
		return nil, err
	}
	return m.unknown([]string{name}, all, "")
}

// unknown is the refusal of names, which the repository has never seen,
// naming for each the droids close to it among all and the sighted, and
// offering those but the sender from.
func (m *Store) unknown(names, all []string, from string) (*UnknownRecipientError, error) {
	candidates, err := withSighted(m.S, all)
	if err != nil {
		return nil, err
	}
	known := slices.DeleteFunc(slices.Clone(candidates), func(n string) bool { return n == from })
	e := &UnknownRecipientError{Names: names, Near: map[string][]string{}, Known: known}
	for _, n := range names {
		if near := records.NearNames(n, candidates); len(near) > 0 {
			e.Near[n] = near
		}
	}
	return e, nil
}
