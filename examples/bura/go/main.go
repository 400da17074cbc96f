// Bura-family starter bot in Go (standard library only): every preset (bura, bura-3p, burkozel,
// burkozel-pairs, echki-6) in one file. Written from docs/protocol.md and docs/rules/bura.md alone.
//
// Build it (Go 1.19 or later, no network needed; the folder holds main.go and go.mod):
//
//	cd examples/bura/go && GOPROXY=off go build -o main . && go vet .
//
// Run it (the folder, holding the built `main`, is the bot):
//
//	arena play bura examples/bura/go builtin:random --games 10
//
// (or build into another folder, `go build -o /tmp/my-bura/main .`, and play /tmp/my-bura).
// Protocol: one JSON object per line on stdin/stdout; stderr is our log.
//
// Strategy: lead one cheap plain card; when answering, take the trick cheaply if points are on the
// table (plain cards first, trumps only for rich tricks), help a partner who holds the trick, otherwise
// throw the cheapest cards face down (so the taker cannot count them); claim only when the cards we
// can see in our team's piles already prove the target (31, or 61).
//
// To make it stronger, change the strategy functions in the middle of the file (chooseLead,
// chooseRespond, chooseClaim): lead several cards of a suit, count the cards already played, keep
// track of the trumps still out (the `event` messages tell everything that happened). Keep the
// protocol loop at the bottom as it is. Each request's legal_actions lists every legal answer: this
// bot always answers with one of its entries, sent back exactly as it arrived.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

const ranks = "ATKQJ9876" // inside a suit, high to low

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// ---------------------------------------------------------------------------------------------------
// Cards. A card is rank + suit text, e.g. "TD" = ten of diamonds; "??" is a card we may not see.

func cardPoints(card string) int {
	if len(card) < 2 {
		return 0
	}
	switch card[0] {
	case 'A':
		return 11
	case 'T':
		return 10
	case 'K':
		return 4
	case 'Q':
		return 3
	case 'J':
		return 2
	}
	return 0 // 9 8 7 6 are worth nothing
}

func points(cards []string) int {
	sum := 0
	for _, c := range cards {
		sum += cardPoints(c)
	}
	return sum
}

// strength: higher = stronger inside its suit (0 for an unknown card).
func strength(card string) int {
	if len(card) < 2 {
		return 0
	}
	i := strings.IndexByte(ranks, card[0])
	if i < 0 {
		return 0
	}
	return len(ranks) - i
}

func suit(card string) byte {
	if len(card) < 2 {
		return '?'
	}
	return card[1]
}

func isTrump(card, trump string) bool {
	return len(trump) == 1 && suit(card) == trump[0]
}

// beatsCard: a card is beaten by a higher card of its suit or, if it is not a trump, by any trump.
func beatsCard(mine, theirs, trump string) bool {
	if len(mine) < 2 || len(theirs) < 2 || mine == "??" || theirs == "??" {
		return false
	}
	if suit(mine) == suit(theirs) {
		return strength(mine) > strength(theirs)
	}
	return isTrump(mine, trump)
}

// beatsSet: does our set beat theirs? Each of their cards needs its own beater: a bipartite matching
// (Kuhn's augmenting paths, as the rules page says), not a sort.
func beatsSet(mine, theirs []string, trump string) bool {
	if len(mine) != len(theirs) || len(mine) == 0 {
		return false
	}
	match := make([]int, len(theirs)) // index of their card -> index of our card beating it, or -1
	for j := range match {
		match[j] = -1
	}
	var augment func(i int, seen []bool) bool
	augment = func(i int, seen []bool) bool {
		for j, card := range theirs {
			if !seen[j] && beatsCard(mine[i], card, trump) {
				seen[j] = true
				if match[j] < 0 || augment(match[j], seen) {
					match[j] = i
					return true
				}
			}
		}
		return false
	}
	for i := range mine {
		if !augment(i, make([]bool, len(theirs))) {
			return false
		}
	}
	return true
}

// cost: how much a set "costs" to give away or to spend: its points, and trumps are worth keeping.
func cost(cards []string, trump string) float64 {
	c := float64(points(cards))
	for _, card := range cards {
		if isTrump(card, trump) {
			c += float64(8 + strength(card))
		}
		c += float64(strength(card)) / 100
	}
	return c
}

// ---------------------------------------------------------------------------------------------------
// What we read from a request (unknown fields are ignored by encoding/json).

type play struct {
	Seat  int      `json:"seat"`
	Cards []string `json:"cards"`
}

type trick struct {
	Leader    int      `json:"leader"`
	Plays     []play   `json:"plays"`
	BestSeat  int      `json:"best_seat"`
	BestCards []string `json:"best_cards"`
	Size      int      `json:"size"`
}

type pile struct {
	Count         int      `json:"count"`
	FaceUp        []string `json:"face_up"`
	FaceDownKnown []string `json:"face_down_known"`
}

type observation struct {
	Seat        int      `json:"seat"`
	Hand        []string `json:"hand"`
	Trump       string   `json:"trump"`
	HandSizes   []int    `json:"hand_sizes"`
	Trick       *trick   `json:"trick"`
	Piles       []pile   `json:"piles"`
	ClaimTarget *int     `json:"claim_target"`
	Teams       [][]int  `json:"teams"`
}

// action is one entry of legal_actions: the parts we look at, and its exact text to send back.
type action struct {
	Type     string          `json:"type"`
	Cards    []string        `json:"cards"`
	FaceDown json.RawMessage `json:"face_down"` // false/true, or (mixed_sets=on) the face-down cards
	raw      json.RawMessage
}

// faceDown: the set is played (at least partly) face down, so it can never beat.
func (a action) faceDown() bool {
	s := string(bytes.TrimSpace(a.FaceDown))
	return s != "" && s != "false" && s != "null" && s != "[]"
}

func minBy(xs []action, key func(action) float64) action {
	best, bestKey := xs[0], key(xs[0])
	for _, x := range xs[1:] {
		if k := key(x); k < bestKey {
			best, bestKey = x, k
		}
	}
	return best
}

func maxBy(xs []action, key func(action) float64) action {
	return minBy(xs, func(a action) float64 { return -key(a) })
}

func filter(xs []action, keep func(action) bool) []action {
	var out []action
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func myTeam(obs *observation, teams [][]int) []int {
	for _, t := range teams {
		if contains(t, obs.Seat) {
			return t
		}
	}
	return []int{obs.Seat}
}

// ---------------------------------------------------------------------------------------------------
// Strategy. Each function gets the request's observation and its legal actions (never empty).

// chooseLead: lead a single cheap plain card: it risks little and makes the others show their hands.
// (A lead of several cards of one suit is legal too; a stronger bot would use it.)
func chooseLead(obs *observation, legal []action) action {
	singles := filter(legal, func(a action) bool { return len(a.Cards) == 1 })
	if len(singles) == 0 {
		singles = legal
	}
	return minBy(singles, func(a action) float64 { return cost(a.Cards, obs.Trump) })
}

func chooseRespond(obs *observation, legal []action, teams [][]int) action {
	trump, tr := obs.Trump, obs.Trick
	if tr == nil {
		return legal[0]
	}
	costOf := func(a action) float64 { return cost(a.Cards, trump) }
	partnerHolds := contains(myTeam(obs, teams), tr.BestSeat)
	// Everything in the trick goes to its taker; cards played face down by others are unknown ("??").
	onTable := 0
	played := map[int]bool{obs.Seat: true}
	for _, p := range tr.Plays {
		played[p.Seat] = true
		known := true
		for _, c := range p.Cards {
			if c == "??" {
				known = false
			}
		}
		if known {
			onTable += points(p.Cards)
		}
	}
	last := true // nobody answers after us
	for s, n := range obs.HandSizes {
		if n > 0 && !played[s] {
			last = false
		}
	}

	faceUp := filter(legal, func(a action) bool { return !a.faceDown() })
	faceDown := filter(legal, func(a action) bool { return a.faceDown() })
	if len(faceUp) == 0 {
		return minBy(legal, costOf)
	}

	if partnerHolds {
		// Our partner takes the trick: give them points, face up so the team can count them.
		if last {
			return maxBy(faceUp, func(a action) float64 { return float64(points(a.Cards)) - costOf(a)/10 })
		}
		return minBy(faceUp, costOf)
	}

	winners := filter(faceUp, func(a action) bool { return beatsSet(a.Cards, tr.BestCards, trump) })
	plain := filter(winners, func(a action) bool {
		for _, c := range a.Cards {
			if isTrump(c, trump) {
				return false
			}
		}
		return true
	})
	if len(plain) > 0 {
		// Winning without trumps: our own cards come back in the trick, so when nobody can answer
		// after us bank the richest set, otherwise the cheapest one that wins.
		if last {
			return maxBy(plain, func(a action) float64 { return float64(points(a.Cards)) })
		}
		return minBy(plain, costOf)
	}
	if len(winners) > 0 {
		cheapest := minBy(winners, costOf)
		spent := 0
		for _, c := range cheapest.Cards {
			if isTrump(c, trump) {
				spent++
			}
		}
		// Spend trumps only where it pays: 10+ points per trump used, or a trump ten/ace we bank anyway.
		if onTable >= 10*spent || points(cheapest.Cards) >= 10 {
			return cheapest
		}
	}
	// Not taking it: throw the cheapest cards, face down when allowed (the taker cannot count them).
	if len(faceDown) > 0 {
		return minBy(faceDown, costOf)
	}
	return minBy(faceUp, costOf)
}

// knownTeamPoints: points we can prove are in our team's piles: face-up cards and the face-down ones
// we may see.
func knownTeamPoints(obs *observation, team []int) int {
	sum := 0
	for _, s := range team {
		if s >= 0 && s < len(obs.Piles) {
			sum += points(obs.Piles[s].FaceUp) + points(obs.Piles[s].FaceDownKnown)
		}
	}
	return sum
}

func chooseClaim(obs *observation, legal []action, teams [][]int) action {
	target := 31
	if obs.ClaimTarget != nil && *obs.ClaimTarget > 0 {
		target = *obs.ClaimTarget
	}
	want := "pass" // a false claim costs double; an unknown face-down card counts zero
	if known := knownTeamPoints(obs, myTeam(obs, teams)); known >= target {
		logf("claiming: we can show %d >= %d", known, target)
		want = "claim"
	}
	for _, a := range legal {
		if a.Type == want {
			return a
		}
	}
	return legal[0]
}

// decide answers one request; it only ever returns an entry of legal_actions.
func decide(req *request, teams [][]int) json.RawMessage {
	var legal []action
	for _, raw := range req.LegalActions {
		var a action
		if err := json.Unmarshal(raw, &a); err == nil {
			a.raw = raw
			legal = append(legal, a)
		}
	}
	if len(legal) == 0 {
		logf("request %s (%s) has no legal actions we can read", req.ID, req.Decision)
		return json.RawMessage(`{"type":"pass"}`)
	}
	var obs observation
	if err := decodeLoose(req.Observation, &obs); err != nil {
		logf("cannot read the observation (%v) - playing the first legal action", err)
		return legal[0].raw
	}
	if len(obs.Teams) > 0 {
		teams = obs.Teams
	}
	switch req.Decision {
	case "lead":
		return chooseLead(&obs, legal).raw
	case "respond":
		return chooseRespond(&obs, legal, teams).raw
	case "claim":
		return chooseClaim(&obs, legal, teams).raw
	}
	logf("no plan for decision %q - playing the first legal action", req.Decision)
	return legal[0].raw
}

// decodeLoose is json.Unmarshal that forgives a field of an unexpected type (it is left at its zero
// value and the rest is still read): only a line that is not JSON at all is an error.
func decodeLoose(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		logf("note: %v", err)
		return nil
	}
	return err
}

// ---------------------------------------------------------------------------------------------------
// The protocol loop: read a line, answer requests, ignore everything we do not know.

type request struct {
	ID           json.RawMessage   `json:"id"`
	Decision     string            `json:"decision"`
	Observation  json.RawMessage   `json:"observation"`
	LegalActions []json.RawMessage `json:"legal_actions"`
}

type message struct {
	Type    string          `json:"type"`
	Preset  string          `json:"preset"`
	Seat    int             `json:"seat"`
	Teams   [][]int         `json:"teams"`
	Rules   json.RawMessage `json:"rules"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Ranks   json.RawMessage `json:"ranks"`
	Points  json.RawMessage `json:"points"`
	request
}

func send(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		logf("cannot encode an answer: %v", err)
		return
	}
	os.Stdout.Write(append(line, '\n')) // os.Stdout is unbuffered: the line leaves at once
}

// safeDecide never lets a bug in the strategy crash the bot: a panic plays the first legal action.
func safeDecide(req *request, teams [][]int) (answer json.RawMessage) {
	defer func() {
		if r := recover(); r != nil {
			logf("strategy panicked: %v - playing the first legal action", r)
			answer = json.RawMessage(`{"type":"pass"}`)
			if len(req.LegalActions) > 0 {
				answer = req.LegalActions[0]
			}
		}
	}()
	return decide(req, teams)
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20) // ReadBytes has no line-length limit
	var teams [][]int
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var msg message
			if jerr := decodeLoose(line, &msg); jerr != nil {
				logf("cannot read a line from the referee: %v", jerr)
			} else {
				switch msg.Type {
				case "hello":
					teams = msg.Teams
					logf("hello: preset %s seat %d rules %s", msg.Preset, msg.Seat, msg.Rules)
					send(map[string]any{"type": "ready", "name": "bura-go-starter"})
				case "request":
					answer := safeDecide(&msg.request, teams)
					send(map[string]any{"type": "action", "id": msg.ID, "action": answer})
				case "error":
					logf("referee error: %s %s", msg.Code, msg.Message)
				case "result":
					logf("result: ranks %s points %s", msg.Ranks, msg.Points)
				case "goodbye":
					return
				}
				// "event" and unknown types: nothing to do, the observation carries what we need.
			}
		}
		if err != nil {
			return // end of input
		}
	}
}
