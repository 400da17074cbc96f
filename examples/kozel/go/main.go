// Kozel starter bot in Go (standard library only), presets `kozel` and `kozel-3p`.
// Written from docs/protocol.md and docs/rules/kozel.md alone.
//
// Build it (Go 1.19 or later, no network needed; the folder holds main.go and go.mod):
//
//	cd examples/kozel/go && GOPROXY=off go build -o main . && go vet .
//
// Run it (the folder, holding the built `main`, is the bot):
//
//	arena play kozel examples/kozel/go builtin:random --games 10
//	arena play kozel-3p examples/kozel/go builtin:random builtin:random --games 10
//
// (or build into another folder, `go build -o /tmp/my-kozel/main .`, and play /tmp/my-kozel).
// Protocol: one JSON object per line on stdin/stdout; stderr is our log.
//
// Strategy in one breath: follow suit (the referee's legal_actions already enforce it), give points to
// a partner who is sure to hold the trick, take tricks that carry points with the cheapest card that
// wins, and otherwise throw the cheapest card. With 3 players: take the widow with five trumps or more
// (then discard plain tens and kings), and in a misère (the widow declined) duck: points taken are
// penalties.
//
// To make it stronger, change the strategy functions in the middle of the file (chooseLead,
// chooseFollow, chooseDiscard, takesWidow, chooseMisere): remember which suits each player could not
// follow (they hold none), lead toward a partner's strength, keep the top trumps for the last tricks.
// Keep the protocol loop at the bottom as it is. The bot only ever plays a card that legal_actions
// lists, so it cannot break the follow-suit rule.
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

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// ---------------------------------------------------------------------------------------------------
// Cards. A card is rank + suit text, e.g. "TH" = ten of hearts, "6C" = six of clubs.

const plainOrder = "ATK9876" // plain-suit ranks, high to low (a deck has either the sevens or the sixes)

func points(card string) int {
	if card == "" {
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
	return 0 // everything else (9 8 7 6) is worth nothing
}

// cards knows which cards are trumps and how cards compare, for the deck in force (from `hello`).
type cards struct {
	trumps []string        // the permanent trumps, high to low
	rank   map[string]int  // trump -> its index in trumps
	deck   map[string]bool // every card of the deck
}

func newCards(deck string) *cards {
	low := "6"
	top := []string{"6C"}
	clubs := "ATK98" // with no-sevens the six of clubs is the top trump
	if deck == "no-sixes" {
		low, top, clubs = "7", nil, "ATK987"
	}
	c := &cards{rank: map[string]int{}, deck: map[string]bool{}}
	c.trumps = append(top, "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD")
	for _, r := range "ATK98" + low {
		c.trumps = append(c.trumps, string(r)+"D")
	}
	for i, t := range c.trumps {
		c.rank[t] = i
		c.deck[t] = true
	}
	plain := map[string]string{"C": clubs, "S": "ATK98" + low, "H": "ATK98" + low}
	for suit, ranks := range plain {
		for _, r := range ranks {
			c.deck[string(r)+suit] = true
		}
	}
	return c
}

func (c *cards) isTrump(card string) bool {
	_, ok := c.rank[card]
	return ok
}

// suit: the suit a card follows: "trump" for every trump, else its own letter.
func (c *cards) suit(card string) string {
	if c.isTrump(card) || len(card) < 2 {
		return "trump"
	}
	return card[1:2]
}

// strength: bigger = stronger. Any trump beats any plain card; inside a plain suit, the rank order decides.
func (c *cards) strength(card string) int {
	if i, ok := c.rank[card]; ok {
		return 100 - i
	}
	if card == "" {
		return 0
	}
	return 10 - strings.IndexByte(plainOrder, card[0])
}

// beats: does `card` beat the trick's current best card `best`, when suit `led` was led?
func (c *cards) beats(card, best, led string) bool {
	if c.isTrump(card) != c.isTrump(best) {
		return c.isTrump(card)
	}
	if !c.isTrump(card) && c.suit(card) != led {
		return false // an off-suit plain card never wins
	}
	return c.strength(card) > c.strength(best)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// minBy / maxBy: the card with the smallest / largest key (ties: the first one).
func minBy(xs []string, key func(string) int) string {
	best, bestKey := xs[0], key(xs[0])
	for _, x := range xs[1:] {
		if k := key(x); k < bestKey {
			best, bestKey = x, k
		}
	}
	return best
}

func maxBy(xs []string, key func(string) int) string {
	return minBy(xs, func(c string) int { return -key(c) })
}

func filter(xs []string, keep func(string) bool) []string {
	var out []string
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// ---------------------------------------------------------------------------------------------------
// What we read from a request (unknown fields are ignored by encoding/json).

type doneTrick struct {
	Leader int      `json:"leader"`
	Cards  []string `json:"cards"`
	Winner int      `json:"winner"`
}

type observation struct {
	Seat     int         `json:"seat"`
	Players  int         `json:"players"`
	Hand     []string    `json:"hand"`
	Contract string      `json:"contract"`
	Sides    [][]int     `json:"sides"`
	MySide   *int        `json:"my_side"`
	Widow    []string    `json:"widow"`
	Discard  []string    `json:"discard"`
	Leader   int         `json:"leader"`
	Led      *string     `json:"led"`
	Trick    []string    `json:"trick"`
	Tricks   []doneTrick `json:"tricks"`
}

// action is one entry of legal_actions: the parts we look at, and its exact text to send back.
type action struct {
	Type  string   `json:"type"`
	Card  string   `json:"card"`
	Cards []string `json:"cards"`
	raw   json.RawMessage
}

// ---------------------------------------------------------------------------------------------------
// Strategy. Everything we need is in the request's observation, so this bot ignores events.

// unseenCards: cards that some other seat may still hold: the deck minus our hand, what was played,
// our own discard.
func unseenCards(c *cards, obs *observation) []string {
	seen := map[string]bool{}
	for _, list := range [][]string{obs.Hand, obs.Trick, obs.Discard} {
		for _, card := range list {
			seen[card] = true
		}
	}
	for _, t := range obs.Tricks {
		for _, card := range t.Cards {
			seen[card] = true
		}
	}
	var out []string
	for card := range c.deck {
		if !seen[card] {
			out = append(out, card)
		}
	}
	return out
}

// sureWinner: true if no card still out can beat `card`. Conservative: any trump out beats a plain card.
func sureWinner(c *cards, card, led string, unseen []string) bool {
	for _, other := range unseen {
		if c.beats(other, card, led) {
			return false
		}
	}
	return true
}

func chooseLead(c *cards, obs *observation, hand []string) string {
	unseen := unseenCards(c, obs)
	trumps := filter(hand, c.isTrump)
	plain := filter(hand, func(x string) bool { return !c.isTrump(x) })
	cheap := func(x string) int { return points(x)*1000 + c.strength(x) }
	// With plenty of trumps, pull the opponents' trumps with a trump nobody can beat.
	if len(trumps) >= 3 {
		top := maxBy(trumps, c.strength)
		if sureWinner(c, top, "trump", unseen) {
			return top
		}
	}
	// A plain card that wins for sure (e.g. an ace once nothing out can trump it) collects points.
	winners := filter(plain, func(x string) bool { return sureWinner(c, x, c.suit(x), unseen) })
	if len(winners) > 0 {
		return maxBy(winners, points)
	}
	// Otherwise lead something cheap and let the others spend their cards.
	if len(plain) > 0 {
		return minBy(plain, cheap)
	}
	return minBy(trumps, cheap)
}

// bestOfTrick: the card that holds the trick so far and its index in play order.
func bestOfTrick(c *cards, trick []string, led string) (string, int) {
	bestI := 0
	for i, card := range trick {
		if c.beats(card, trick[bestI], led) {
			bestI = i
		}
	}
	return trick[bestI], bestI
}

func chooseFollow(c *cards, obs *observation, hand []string) string {
	led := ""
	if obs.Led != nil {
		led = *obs.Led
	}
	players := obs.Players
	if players <= 0 {
		players = len(obs.Sides) * 2
	}
	mySide := map[int]bool{obs.Seat: true}
	if obs.MySide != nil && *obs.MySide >= 0 && *obs.MySide < len(obs.Sides) {
		for _, s := range obs.Sides[*obs.MySide] {
			mySide[s] = true
		}
	}
	// Cheapest: lose as few points as possible; among equal points keep the stronger cards for later.
	cheapest := func() string {
		return minBy(hand, func(x string) int { return points(x)*1000 + b2i(c.isTrump(x))*200 + c.strength(x) })
	}
	if len(obs.Trick) == 0 || players <= 0 {
		return cheapest()
	}
	best, bestI := bestOfTrick(c, obs.Trick, led)
	bestSeat := (obs.Leader + bestI) % players
	last := len(obs.Trick) == players-1
	onTable := 0
	for _, card := range obs.Trick {
		onTable += points(card)
	}
	unseen := unseenCards(c, obs)

	// A partner holds the trick for sure: give them our richest card (plain first: trumps are power).
	if mySide[bestSeat] && bestSeat != obs.Seat && (last || sureWinner(c, best, led, unseen)) {
		return maxBy(hand, func(x string) int { return (points(x)-5*b2i(c.isTrump(x)))*1000 - c.strength(x) })
	}

	winning := filter(hand, func(x string) bool { return c.beats(x, best, led) })
	if !mySide[bestSeat] && len(winning) > 0 {
		// A plain card of the led suit that wins brings its own points home: play the richest such card.
		plain := filter(winning, func(x string) bool { return !c.isTrump(x) })
		if len(plain) > 0 {
			richest := maxBy(plain, points)
			if last || sureWinner(c, richest, led, unseen) {
				return richest
			}
		}
		// Otherwise win with the lowest trump, if the trick is worth it. Trumps are our power, so
		// queens and the six of clubs are kept for rich tricks and jacks for tricks worth something.
		trump := minBy(winning, c.strength)
		need := 1
		switch trump[0] {
		case 'Q', '6':
			need = 10
		case 'J':
			need = 4
		}
		if onTable >= need {
			return trump
		}
	}
	return cheapest()
}

// chooseDiscard: the soloist's discard counts for the soloist for sure: bury plain tens and kings we
// could lose.
func chooseDiscard(c *cards, hand []string) []string {
	has := map[string]bool{}
	for _, x := range hand {
		has[x] = true
	}
	keepValue := func(x string) int {
		if c.isTrump(x) || x[0] == 'A' {
			return 100 + c.strength(x) // never throw away power
		}
		guard := 0
		if x[0] == 'T' && has["A"+x[1:]] {
			guard = 50 // a ten behind its own ace is safe
		}
		return guard - points(x)
	}
	sorted := append([]string(nil), hand...)
	sort.SliceStable(sorted, func(i, j int) bool { return keepValue(sorted[i]) < keepValue(sorted[j]) })
	if len(sorted) > 2 {
		sorted = sorted[:2]
	}
	return sorted
}

// takesWidow: playing alone against two needs power: five trumps or more.
func takesWidow(c *cards, hand []string) bool {
	return len(filter(hand, c.isTrump)) >= 5
}

// chooseMisere: everyone for themselves, penalised for points taken: lead the weakest card; when
// following, play the richest card that still loses the trick (let someone else take our points),
// else the weakest.
func chooseMisere(c *cards, obs *observation, hand []string) string {
	if len(obs.Trick) == 0 {
		return minBy(hand, func(x string) int { return c.strength(x)*100 + points(x) })
	}
	led := ""
	if obs.Led != nil {
		led = *obs.Led
	}
	best, _ := bestOfTrick(c, obs.Trick, led)
	losing := filter(hand, func(x string) bool { return !c.beats(x, best, led) })
	if len(losing) > 0 {
		return maxBy(losing, func(x string) int { return points(x)*1000 + c.strength(x) })
	}
	return minBy(hand, c.strength)
}

func playAction(card string) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"type": "play", "card": card})
	return raw
}

// decide answers one request. Plays are always cards that legal_actions lists.
func decide(req *request, c *cards) json.RawMessage {
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
	var hand []string // the cards we may play now
	for _, a := range legal {
		if a.Type == "play" && a.Card != "" {
			hand = append(hand, a.Card)
		}
	}
	switch req.Decision {
	case "widow":
		take := takesWidow(c, obs.Hand)
		for _, a := range legal {
			var w struct {
				Take bool `json:"take"`
			}
			if json.Unmarshal(a.raw, &w) == nil && a.Type == "widow" && w.Take == take {
				return a.raw
			}
		}
	case "discard":
		// The widow joins the hand; add it in case the observation lists it apart.
		twelve := append([]string(nil), obs.Hand...)
		for _, w := range obs.Widow {
			if !contains(twelve, w) {
				twelve = append(twelve, w)
			}
		}
		pick := chooseDiscard(c, twelve)
		for _, a := range legal {
			if len(a.Cards) == 2 && len(pick) == 2 && contains(a.Cards, pick[0]) && contains(a.Cards, pick[1]) {
				return a.raw
			}
		}
	case "lead", "follow":
		if len(hand) == 0 {
			break
		}
		if obs.Contract == "misere" {
			return playAction(chooseMisere(c, &obs, hand))
		}
		if req.Decision == "lead" {
			return playAction(chooseLead(c, &obs, hand))
		}
		return playAction(chooseFollow(c, &obs, hand))
	}
	logf("no plan for decision %q - playing the first legal action", req.Decision)
	return legal[0].raw
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
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
	Type   string `json:"type"`
	Preset string `json:"preset"`
	Seat   int    `json:"seat"`
	Rules  struct {
		Deck string `json:"deck"`
	} `json:"rules"`
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
func safeDecide(req *request, c *cards) (answer json.RawMessage) {
	defer func() {
		if r := recover(); r != nil {
			logf("strategy panicked: %v - playing the first legal action", r)
			answer = json.RawMessage(`{"type":"pass"}`)
			if len(req.LegalActions) > 0 {
				answer = req.LegalActions[0]
			}
		}
	}()
	return decide(req, c)
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20) // ReadBytes has no line-length limit
	c := newCards("no-sevens")
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var msg message
			if jerr := decodeLoose(line, &msg); jerr != nil {
				logf("cannot read a line from the referee: %v", jerr)
			} else {
				switch msg.Type {
				case "hello":
					deck := msg.Rules.Deck
					if deck == "" {
						deck = "no-sevens"
					}
					c = newCards(deck)
					logf("hello: preset %s seat %d deck %s", msg.Preset, msg.Seat, deck)
					send(map[string]any{"type": "ready", "name": "kozel-go-starter"})
				case "request":
					answer := safeDecide(&msg.request, c)
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
