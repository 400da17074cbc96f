// Burraco starter bot in Go (standard library only), presets `burraco` and `burraco-2p`.
// Written from docs/protocol.md and docs/rules/burraco.md alone.
//
// Build it (Go 1.19 or later, no network needed; the folder holds main.go and go.mod):
//
//	cd examples/burraco/go && GOPROXY=off go build -o main . && go vet .
//
// Run it (the folder, holding the built `main`, is the bot):
//
//	arena play burraco-2p examples/burraco/go builtin:random --games 4
//	arena play burraco examples/burraco/go builtin:random --games 4
//
// (or build into another folder, `go build -o /tmp/my-burraco/main .`, and play /tmp/my-burraco).
// Protocol: one JSON object per line on stdin/stdout; stderr is our log.
//
// Burraco requests carry no legal_actions list (`null`: too many to list), so this bot builds its
// actions from the rules page and checks them itself. One turn is several requests: `draw`, then
// `play` again and again (one meld, add or discard each) until a discard ends the turn.
//
// Strategy: take the discard pile when its cards meld at once with ours, else draw from the stock;
// put down every natural set (3+ of a rank) and run (3+ in a suit); add natural cards to our team's
// melds; spend a wild (joker or two) only to make a burraco, to start a meld while the hand is big,
// or to unload a small hand; discard a card that helps neither the opponents' melds nor our own hand.
// Every meld keeps the "last card" rule (canEndTurnAfter), so the bot can always end its turn with a
// legal discard.
//
// To make it stronger, change the strategy functions in the middle of the file (chooseDraw,
// nextMeldOrAdd, wildPlay, discard): remember what the opponents took from the pile (the `take_pile`
// events are public) and never feed them, hold cards back instead of melding early, plan the
// pozzetto and the closing. Keep canEndTurnAfter in front of every meld and add: the referee refuses
// a meld that would leave the turn unable to end, and a refused action forfeits the match.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

const order = "A23456789TJQK" // sequence order; the ace is 1 here and 14 after the king

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// rulesInForce: the options we read from hello.rules.
var duplicateSetsForbidden bool

// ---------------------------------------------------------------------------------------------------
// Cards. A card is rank + suit text ("5H", "TC"), or "X" for a joker. Two decks: cards repeat.

func isWild(card string) bool {
	return card == "X" || (card != "" && card[0] == '2') // jokers and every two
}

// value: card values for scoring: joker 30, two 20, ace 15, K..8 10, 7..3 5.
func value(card string) int {
	if card == "X" {
		return 30
	}
	if card == "" {
		return 0
	}
	switch card[0] {
	case '2':
		return 20
	case 'A':
		return 15
	case 'K', 'Q', 'J', 'T', '9', '8':
		return 10
	}
	return 5
}

func rankOf(card string) byte {
	if card == "" {
		return '?'
	}
	return card[0]
}

func suitOf(card string) byte {
	if len(card) < 2 {
		return '?' // a joker has no suit
	}
	return card[1]
}

func rankNumber(rank byte, highAce bool) int {
	if rank == 'A' && highAce {
		return 14
	}
	return strings.IndexByte(order, rank) + 1
}

// minus: the hand without `cards` (a multiset: two decks mean identical cards).
func minus(hand, cards []string) []string {
	left := append([]string(nil), hand...)
	for _, c := range cards {
		for i, h := range left {
			if h == c {
				left = append(left[:i], left[i+1:]...)
				break
			}
		}
	}
	return left
}

// hasAll: does `hand` hold every card of `cards` (copies counted)?
func hasAll(hand, cards []string) bool {
	return len(minus(hand, cards)) == len(hand)-len(cards)
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// less compares two keys lexicographically (Python's tuple order).
func less(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ---------------------------------------------------------------------------------------------------
// What we read from a request (unknown fields are ignored by encoding/json).

type wild struct {
	Index     int    `json:"index"`
	Card      string `json:"card"`
	StandsFor string `json:"stands_for"`
}

type meld struct {
	ID      int      `json:"id"`
	Team    int      `json:"team"`
	Kind    string   `json:"kind"` // "set" or "sequence"
	Rank    *string  `json:"rank"`
	Suit    *string  `json:"suit"`
	Cards   []string `json:"cards"`
	Wild    *wild    `json:"wild"`
	Burraco bool     `json:"burraco"`
}

func (m *meld) rank() string {
	if m.Rank == nil {
		return ""
	}
	return *m.Rank
}

func (m *meld) suit() string {
	if m.Suit == nil {
		return ""
	}
	return *m.Suit
}

type observation struct {
	Seat        int      `json:"seat"`
	Team        int      `json:"team"`
	Hand        []string `json:"hand"`
	DiscardPile []string `json:"discard_pile"`
	Melds       []meld   `json:"melds"`
	Pozzetti    []struct {
		Taken bool `json:"taken"`
	} `json:"pozzetti"`
	LockedCard *string `json:"locked_card"`
	LastTurn   bool    `json:"last_turn"`
}

// ---------------------------------------------------------------------------------------------------
// Reading the table.

// sequenceSpan: (low, high) of a sequence meld on the table, counting the wild's place (ace low = 1,
// high = 14); ok is false when it cannot be read.
func sequenceSpan(m *meld) (low, high int, ok bool) {
	for i, card := range m.Cards {
		face := card
		if m.Wild != nil && m.Wild.Index == i {
			face = m.Wild.StandsFor
		}
		if face != "" && face[0] != 'A' && face != "X" { // an ace alone does not say whether it is low or high
			n := rankNumber(face[0], false)
			if n <= 0 {
				return 0, 0, false
			}
			low = n - i
			return low, low + len(m.Cards) - 1, true
		}
	}
	return 0, 0, false
}

// fits: can this natural card be added to meld `m` (which end of a run, or a set of its rank)?
func fits(card string, m *meld) bool {
	if isWild(card) || len(card) < 2 {
		return false
	}
	if m.Kind == "set" {
		return string(rankOf(card)) == m.rank() && len(m.Cards) < 9
	}
	low, high, ok := sequenceSpan(m)
	if !ok || string(suitOf(card)) != m.suit() {
		return false
	}
	if rankOf(card) == 'A' {
		// Low before a 2, or high after a king, but never both ends (no K-A-2 wrap).
		return (low == 2 && high < 14) || (high == 13 && low > 1)
	}
	n := rankNumber(rankOf(card), false)
	return n == low-1 || n == high+1
}

// wildFits: a wild may join a meld that has none yet, if there is room for it.
func wildFits(m *meld) bool {
	if m.Wild != nil {
		return false
	}
	if m.Kind == "set" {
		return len(m.Cards) < 9
	}
	low, high, ok := sequenceSpan(m)
	if !ok {
		return false
	}
	if high < 14 {
		return true // the high end is free (after A..K, the wild is the 14th card, the high ace)
	}
	return low > 2 // the high ace is there: the low end is free unless the wild would be the low ace
}

// naturalMelds: new melds without wilds: sets of 3+ cards of one rank and runs of 3+ in one suit.
func naturalMelds(hand []string) [][]string {
	var naturals []string
	for _, c := range hand {
		if !isWild(c) && len(c) == 2 {
			naturals = append(naturals, c)
		}
	}
	var found [][]string
	var rankOrder []byte
	byRank := map[byte][]string{}
	for _, c := range naturals {
		r := rankOf(c)
		if _, seen := byRank[r]; !seen {
			rankOrder = append(rankOrder, r)
		}
		byRank[r] = append(byRank[r], c)
	}
	for _, r := range rankOrder {
		if cards := byRank[r]; len(cards) >= 3 {
			if len(cards) > 9 {
				cards = cards[:9]
			}
			found = append(found, append([]string(nil), cards...))
		}
	}
	for _, suit := range "SHDC" {
		// One card per rank (a run may not hold duplicates); the ace counts high (Q-K-A), since a
		// low ace (A-2-3) would need the two, which we keep as a wild.
		byNumber := map[int]string{}
		for _, c := range naturals {
			if rune(suitOf(c)) == suit {
				byNumber[rankNumber(rankOf(c), true)] = c
			}
		}
		var run []string
		for n := 3; n <= 15; n++ {
			if c, ok := byNumber[n]; ok {
				run = append(run, c)
				continue
			}
			if len(run) >= 3 {
				found = append(found, run)
			}
			run = nil
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return len(found[i]) > len(found[j]) })
	return found
}

// nearMelds: two natural cards that a wild would turn into a meld: a pair (5S 5D + wild) or two
// cards of a suit one or two ranks apart (5S 6S or 5S 7S + wild).
func nearMelds(hand []string) [][2]string {
	seen := map[string]bool{}
	var naturals []string
	for _, c := range hand {
		if !isWild(c) && len(c) == 2 && !seen[c] {
			seen[c] = true
			naturals = append(naturals, c)
		}
	}
	sort.SliceStable(naturals, func(i, j int) bool {
		a, b := naturals[i], naturals[j]
		if suitOf(a) != suitOf(b) {
			return suitOf(a) < suitOf(b)
		}
		return rankNumber(rankOf(a), true) < rankNumber(rankOf(b), true)
	})
	var found [][2]string
	for i, a := range naturals {
		for _, b := range naturals[i+1:] {
			gap := rankNumber(rankOf(b), true) - rankNumber(rankOf(a), true)
			if rankOf(a) == rankOf(b) || (suitOf(a) == suitOf(b) && gap > 0 && gap <= 2) {
				found = append(found, [2]string{a, b})
			}
		}
	}
	// Unload valuable cards first.
	sort.SliceStable(found, func(i, j int) bool {
		return value(found[i][0])+value(found[i][1]) > value(found[j][0])+value(found[j][1])
	})
	return found
}

// meldable: how many cards of `hand` could go down without a wild: natural melds plus cards
// fitting `melds`.
func meldable(hand []string, melds []*meld) int {
	var used []string
	for _, cards := range naturalMelds(hand) {
		if hasAll(minus(hand, used), cards) { // still available
			used = append(used, cards...)
		}
	}
	n := len(used)
	for _, c := range minus(hand, used) {
		for _, m := range melds {
			if fits(c, m) {
				n++
				break
			}
		}
	}
	return n
}

// ---------------------------------------------------------------------------------------------------
// Strategy.

// chooseDraw: take the discard pile when its cards meld at once with ours, else draw from the stock.
func chooseDraw(obs *observation) map[string]any {
	pile := obs.DiscardPile
	if len(pile) == 0 {
		return map[string]any{"type": "draw"}
	}
	var ours []*meld
	for i := range obs.Melds {
		if obs.Melds[i].Team == obs.Team {
			ours = append(ours, &obs.Melds[i])
		}
	}
	withPile := append(append([]string(nil), obs.Hand...), pile...)
	gain := meldable(withPile, ours) - meldable(obs.Hand, ours)
	if gain >= 3 || (gain >= 2 && len(pile) <= 4) {
		return map[string]any{"type": "take_pile"}
	}
	return map[string]any{"type": "draw"}
}

type turn struct {
	obs           *observation
	hand          []string
	ours, theirs  []*meld
	pozzettoTaken bool
	locked        string
}

func newTurn(obs *observation) *turn {
	t := &turn{obs: obs, hand: obs.Hand}
	for i := range obs.Melds {
		if obs.Melds[i].Team == obs.Team {
			t.ours = append(t.ours, &obs.Melds[i])
		} else {
			t.theirs = append(t.theirs, &obs.Melds[i])
		}
	}
	if obs.Team >= 0 && obs.Team < len(obs.Pozzetti) {
		t.pozzettoTaken = obs.Pozzetti[obs.Team].Taken
	}
	if obs.LockedCard != nil {
		t.locked = *obs.LockedCard
	}
	return t
}

// canEndTurnAfter: the "last card" rule: after melding `used` we must still be able to end the turn.
func (t *turn) canEndTurnAfter(used []string, makesBurraco bool) bool {
	if !hasAll(t.hand, used) {
		return false
	}
	left := minus(t.hand, used)
	if len(left) == 0 {
		// Melding everything takes the pozzetto direct; not on the stock's last turn (keep a discard).
		return !t.pozzettoTaken && !t.obs.LastTurn
	}
	if len(left) >= 2 {
		return true
	}
	last := left[0]
	if last == t.locked {
		return false // the card of a one-card pile taken this turn may not be discarded
	}
	if !t.pozzettoTaken || t.obs.LastTurn {
		return true // that discard takes the pozzetto (or, on the last turn, simply ends the hand)
	}
	hasBurraco := makesBurraco
	for _, m := range t.ours {
		hasBurraco = hasBurraco || m.Burraco
	}
	return hasBurraco && !isWild(last) // that discard closes the hand
}

// teamHasSet: with duplicate_sets=forbidden a team may not put down a second set of a rank.
func (t *turn) teamHasSet(rank byte) bool {
	for _, m := range t.ours {
		if m.Kind == "set" && m.rank() == string(rank) {
			return true
		}
	}
	return false
}

func isSet(cards []string) bool {
	var r byte
	for _, c := range cards {
		if isWild(c) {
			continue
		}
		if r != 0 && rankOf(c) != r {
			return false
		}
		r = rankOf(c)
	}
	return true
}

func (t *turn) setAllowed(cards []string) bool {
	if !duplicateSetsForbidden || !isSet(cards) {
		return true
	}
	for _, c := range cards {
		if !isWild(c) {
			return !t.teamHasSet(rankOf(c))
		}
	}
	return true
}

func (t *turn) nextMeldOrAdd() map[string]any {
	for _, cards := range naturalMelds(t.hand) {
		if t.setAllowed(cards) && t.canEndTurnAfter(cards, len(cards) >= 7) {
			return map[string]any{"type": "meld", "cards": cards}
		}
	}
	// Grow the longest melds first: seven cards make a burraco.
	longest := append([]*meld(nil), t.ours...)
	sort.SliceStable(longest, func(i, j int) bool { return len(longest[i].Cards) > len(longest[j].Cards) })
	for _, m := range longest {
		for _, card := range t.hand {
			if fits(card, m) && t.canEndTurnAfter([]string{card}, len(m.Cards)+1 >= 7) {
				return map[string]any{"type": "add", "meld": m.ID, "cards": []string{card}}
			}
		}
	}
	return t.wildPlay(longest)
}

// wildPlay: wilds are precious (and cost 20 or 30 left in hand): use one to turn a 6-card meld into
// a burraco, to start a meld from a pair or a broken run while the hand is big, or to unload a small
// hand.
func (t *turn) wildPlay(longest []*meld) map[string]any {
	w := ""
	for _, c := range t.hand {
		if isWild(c) && (w == "" || value(c) < value(w)) {
			w = c // a two before a joker
		}
	}
	if w == "" {
		return nil
	}
	smallHand, bigHand := len(t.hand) <= 5, len(t.hand) >= 8
	for _, m := range longest {
		grows := len(m.Cards) == 6 || smallHand
		if wildFits(m) && grows && t.canEndTurnAfter([]string{w}, len(m.Cards)+1 >= 7) {
			return map[string]any{"type": "add", "meld": m.ID, "cards": []string{w}}
		}
	}
	if smallHand || bigHand {
		for _, pair := range nearMelds(t.hand) {
			cards := []string{pair[0], pair[1], w}
			if t.setAllowed(cards) && t.canEndTurnAfter(cards, false) {
				return map[string]any{"type": "meld", "cards": cards}
			}
		}
	}
	return nil
}

// discard: give nothing away: not a wild, not a card the opponents can add to their melds, not a card
// that works with our hand; among the rest, the most valuable (it would count against us).
func (t *turn) discard() map[string]any {
	hand := t.hand
	var allowed []string
	for _, c := range hand {
		if c != t.locked || count(hand, c) > 1 {
			allowed = append(allowed, c)
		}
	}
	if len(allowed) == 0 {
		allowed = hand
	}
	if t.pozzettoTaken && len(hand) == 1 && !t.obs.LastTurn {
		// A closing discard is never wild.
		var natural []string
		for _, c := range allowed {
			if !isWild(c) {
				natural = append(natural, c)
			}
		}
		if len(natural) > 0 {
			allowed = natural
		}
	}
	near := nearMelds(hand)
	danger := func(card string) []int {
		helpsThem, helpsUs := false, false
		for _, m := range t.theirs {
			helpsThem = helpsThem || fits(card, m)
		}
		for _, m := range t.ours {
			helpsUs = helpsUs || fits(card, m)
		}
		neighbours := 0
		for _, pair := range near {
			if pair[0] == card || pair[1] == card {
				neighbours++
			}
		}
		return []int{b2i(isWild(card)), b2i(helpsThem), b2i(helpsUs), neighbours, -value(card)}
	}
	best := allowed[0]
	bestKey := danger(best)
	for _, c := range allowed[1:] {
		if k := danger(c); less(k, bestKey) {
			best, bestKey = c, k
		}
	}
	return map[string]any{"type": "discard", "card": best}
}

// decide answers one request (legal_actions is null in Burraco: we build the action ourselves).
func decide(req *request) any {
	var obs observation
	if err := decodeLoose(req.Observation, &obs); err != nil {
		logf("cannot read the observation (%v)", err)
	}
	switch req.Decision {
	case "draw":
		return chooseDraw(&obs)
	case "play":
		t := newTurn(&obs)
		if a := t.nextMeldOrAdd(); a != nil {
			return a
		}
		if len(t.hand) == 0 {
			logf("a play decision with an empty hand?")
			return map[string]any{"type": "discard", "card": ""}
		}
		return t.discard()
	}
	logf("no plan for decision %q", req.Decision)
	return map[string]any{"type": "draw"}
}

// fallback: what we answer if the strategy panics: a plain draw, or the discard of an allowed card.
func fallback(req *request) (answer any) {
	answer = map[string]any{"type": "draw"}
	var obs observation
	decodeLoose(req.Observation, &obs)
	if req.Decision != "play" || len(obs.Hand) == 0 {
		return answer
	}
	answer = map[string]any{"type": "discard", "card": obs.Hand[len(obs.Hand)-1]}
	defer func() { recover() }() // keep the plain discard if even this panics
	answer = newTurn(&obs).discard()
	return answer
}

// ---------------------------------------------------------------------------------------------------
// The protocol loop: read a line, answer requests, ignore everything we do not know.

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

type request struct {
	ID          json.RawMessage `json:"id"`
	Decision    string          `json:"decision"`
	Observation json.RawMessage `json:"observation"`
}

type message struct {
	Type   string `json:"type"`
	Preset string `json:"preset"`
	Seat   int    `json:"seat"`
	Rules  struct {
		DuplicateSets string `json:"duplicate_sets"`
	} `json:"rules"`
	Teams   json.RawMessage `json:"teams"`
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

// safeDecide never lets a bug in the strategy crash the bot.
func safeDecide(req *request) (answer any) {
	defer func() {
		if r := recover(); r != nil {
			logf("strategy panicked: %v - falling back", r)
			answer = fallback(req)
		}
	}()
	return decide(req)
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20) // ReadBytes has no line-length limit
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var msg message
			if jerr := decodeLoose(line, &msg); jerr != nil {
				logf("cannot read a line from the referee: %v", jerr)
			} else {
				switch msg.Type {
				case "hello":
					duplicateSetsForbidden = msg.Rules.DuplicateSets == "forbidden"
					logf("hello: preset %s seat %d teams %s", msg.Preset, msg.Seat, msg.Teams)
					send(map[string]any{"type": "ready", "name": "burraco-go-starter"})
				case "request":
					answer := safeDecide(&msg.request)
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
