package main

import (
	"strconv"
	"time"
)

// The data generator is a pure function of (seed, row index): any range of
// rows can be produced independently (chunked COPY, DuckDB loading) and two
// runs with the same seed produce byte-identical tables on every system.

// Shape of the generated data. Changing one changes every figure.
const (
	// Users is the number of rows of users (user_id 1..Users).
	Users = 100_000
	// EventStep is the spacing of events.ts: row i has ts = EventEpoch + i*EventStep.
	EventStep = 10 * time.Millisecond
	// PayloadLen is the length of events.payload.
	PayloadLen = 40
)

// EventEpoch is events.ts of row 0.
var EventEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Kinds are the ~20 values of events.kind (uniformly drawn).
var Kinds = []string{
	"click", "view", "scroll", "hover", "purchase", "signup", "login", "logout",
	"search", "share", "like", "comment", "download", "upload", "play", "pause",
	"error", "refund", "subscribe", "unsubscribe",
}

// Countries are the values of users.country.
var Countries = []string{
	"AR", "AU", "BR", "CA", "CH", "CN", "DE", "DK", "ES", "FI", "FR", "GB", "IE", "IN",
	"IT", "JP", "KR", "MX", "NL", "NO", "NZ", "PL", "PT", "SE", "SG", "US", "ZA",
}

// EventColumns and UserColumns are the column names in table order.
var (
	EventColumns = []string{"id", "ts", "user_id", "kind", "value", "payload"}
	UserColumns  = []string{"user_id", "country"}
)

// Event DDL, identical on every system (no index: every system scans).
const (
	EventsDDL = "CREATE TABLE events (id bigint, ts timestamptz, user_id int, kind text, value double precision, payload text)"
	UsersDDL  = "CREATE TABLE users (user_id int, country text)"
)

// Gen generates rows for one seed.
type Gen struct {
	seed uint64
	pool string // payloads are 40-byte windows of this string
}

// NewGen returns the generator for seed.
func NewGen(seed int64) *Gen {
	g := &Gen{seed: uint64(seed)}
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_"
	b := make([]byte, 8192)
	for i := range b {
		b[i] = alphabet[mix(g.seed^0x9e3779b97f4a7c15, uint64(i))%uint64(len(alphabet))]
	}
	g.pool = string(b)
	return g
}

// mix is splitmix64 of (seed, i): a cheap, well-distributed hash.
func mix(seed, i uint64) uint64 {
	z := seed + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Event is one row of events.
type Event struct {
	ID      int64
	TS      time.Time
	UserID  int32
	Kind    string
	Value   float64
	Payload string
}

// Event returns row i (0-based); its id is i+1.
func (g *Gen) Event(i int64) Event {
	h := mix(g.seed, uint64(i))
	h2 := mix(g.seed^0x5bd1e995, uint64(i))
	off := int(h2 % uint64(len(g.pool)-PayloadLen))
	return Event{
		ID:      i + 1,
		TS:      EventTS(i),
		UserID:  int32(h%Users) + 1,
		Kind:    Kinds[(h>>20)%uint64(len(Kinds))],
		Value:   float64((h>>32)%1_000_000) / 100, // 0.00 .. 9999.99, exact in text
		Payload: g.pool[off : off+PayloadLen],
	}
}

// EventTS is events.ts of row i.
func EventTS(i int64) time.Time { return EventEpoch.Add(time.Duration(i) * EventStep) }

// Country returns users.country of user_id (1-based).
func (g *Gen) Country(userID int32) string {
	return Countries[mix(g.seed^0xc2b2ae35, uint64(userID))%uint64(len(Countries))]
}

// eventSource is a pgx.CopyFromSource over rows [next, end). Values reuses
// one slice: pgx encodes a row before asking for the next.
type eventSource struct {
	g         *Gen
	next, end int64
	vals      []any
}

func newEventSource(g *Gen, start, end int64) *eventSource {
	return &eventSource{g: g, next: start - 1, end: end, vals: make([]any, len(EventColumns))}
}

func (s *eventSource) Next() bool { s.next++; return s.next < s.end }
func (s *eventSource) Err() error { return nil }
func (s *eventSource) Values() ([]any, error) {
	e := s.g.Event(s.next)
	s.vals[0], s.vals[1], s.vals[2], s.vals[3], s.vals[4], s.vals[5] = e.ID, e.TS, e.UserID, e.Kind, e.Value, e.Payload
	return s.vals, nil
}

// userSource is a pgx.CopyFromSource over all users.
type userSource struct {
	g    *Gen
	next int32
	vals []any
}

func (s *userSource) Next() bool { s.next++; return s.next <= Users }
func (s *userSource) Err() error { return nil }
func (s *userSource) Values() ([]any, error) {
	if s.vals == nil {
		s.vals = make([]any, 2)
	}
	s.vals[0], s.vals[1] = s.next, s.g.Country(s.next)
	return s.vals, nil
}

// insertSQL is the single-row autocommit INSERT of figure 2; pgx prepares
// it once per connection and sends binary parameters.
const insertSQL = "INSERT INTO events VALUES ($1, $2, $3, $4, $5, $6)"

// rowText formats a row for error messages and golden tests.
func (e Event) rowText() string {
	return strconv.FormatInt(e.ID, 10) + "|" + e.TS.Format(time.RFC3339Nano) + "|" +
		strconv.Itoa(int(e.UserID)) + "|" + e.Kind + "|" + strconv.FormatFloat(e.Value, 'f', -1, 64) + "|" + e.Payload
}
