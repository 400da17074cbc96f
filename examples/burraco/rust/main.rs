// Burraco starter bot in Rust (presets `burraco` and `burraco-2p`), standard library only.
// Written from docs/protocol.md and docs/rules/burraco.md alone.
//
// Build it (the platform compiles it the same way, with Debian's rustc 1.63):
//   mkdir -p /tmp/my-burraco && rustc --edition 2021 -O -o /tmp/my-burraco/main examples/burraco/rust/main.rs
// Run it (a folder whose `main` is a native binary is a bot):
//   arena play burraco-2p /tmp/my-burraco builtin:random --games 4 --duplicate
// Protocol: one JSON object per line on stdin/stdout (flushed after every line); stderr is our log.
//
// Burraco requests carry no legal_actions list (`null`: too many to list), so this bot builds its
// actions from the rules page and checks them itself. One turn is several requests: `draw`, then
// `play` again and again (one meld, add or discard each) until a discard ends the turn.
//
// Strategy: draw from the stock unless the discard pile melds at once with our cards; put down every
// natural set (3+ of a rank) and run (3+ in a suit); add natural cards to our team's melds; spend a
// wild (joker or two) only to make a burraco or to empty a small hand; discard a card that helps
// neither the opponents' melds nor our own hand. Every meld keeps the "last card" rule, so the bot
// can always end its turn with a legal discard.
//
// Making it stronger: the strategy is `choose_draw` and the `Turn` methods in the middle of this file.
// Ideas: keep a pair for the pozzetto, hold back melds that would give the opponents a safe discard,
// remember which cards the opponents took from the pile (the `event` messages, ignored here), and
// close as soon as a burraco and the pozzetto allow it. Any new meld or add must still pass
// `can_end_turn_after` (the rules page's *The last card*), or the referee refuses it.
// ---------------------------------------------------------------------------------------------------
// A small JSON reader and writer (the standard library has none). Enough for the protocol: objects,
// arrays, strings with every escape, numbers, true/false/null. Unknown fields are simply never read.

#[derive(Clone, Debug)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

#[allow(dead_code)] // a toolkit: not every kit uses every helper
impl Json {
    /// The field `key` of an object, or null when missing (or when this is not an object).
    fn get(&self, key: &str) -> &Json {
        if let Json::Obj(fields) = self {
            for (k, v) in fields {
                if k == key {
                    return v;
                }
            }
        }
        &NULL
    }
    fn str_or<'a>(&'a self, default: &'a str) -> &'a str {
        match self {
            Json::Str(s) => s.as_str(),
            _ => default,
        }
    }
    fn int_or(&self, default: i64) -> i64 {
        match self {
            Json::Num(n) => *n as i64,
            _ => default,
        }
    }
    fn bool_or(&self, default: bool) -> bool {
        match self {
            Json::Bool(b) => *b,
            _ => default,
        }
    }
    fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(items) => items.as_slice(),
            _ => &[],
        }
    }
    fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
    /// A list of strings (e.g. cards); anything that is not a string is left out.
    fn strings(&self) -> Vec<String> {
        self.arr().iter().filter_map(|v| match v {
            Json::Str(s) => Some(s.clone()),
            _ => None,
        }).collect()
    }
    fn ints(&self) -> Vec<i64> {
        self.arr().iter().map(|v| v.int_or(0)).collect()
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) => {
                if n.fract() == 0.0 && n.abs() < 9.0e15 {
                    out.push_str(&format!("{}", *n as i64));
                } else if n.is_finite() {
                    out.push_str(&format!("{}", n));
                } else {
                    out.push_str("null");
                }
            }
            Json::Str(s) => write_string(s, out),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Builders for the messages we send.
fn obj(fields: Vec<(&str, Json)>) -> Json {
    Json::Obj(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}
fn jstr(s: &str) -> Json {
    Json::Str(s.to_string())
}
#[allow(dead_code)]
fn jcards(cards: &[String]) -> Json {
    Json::Arr(cards.iter().map(|c| Json::Str(c.clone())).collect())
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn parse(text: &str) -> Result<Json, String> {
        let mut p = Parser { bytes: text.as_bytes(), pos: 0 };
        let value = p.value(0)?;
        p.skip_ws();
        if p.pos != p.bytes.len() {
            return Err(format!("trailing characters at {}", p.pos));
        }
        Ok(value)
    }
    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && matches!(self.bytes[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }
    fn expect(&mut self, literal: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            Ok(value)
        } else {
            Err(format!("bad literal at {}", self.pos))
        }
    }
    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > 200 {
            return Err("nested too deep".to_string());
        }
        self.skip_ws();
        match self.peek() {
            None => Err("unexpected end".to_string()),
            Some(b'{') => {
                self.pos += 1;
                let mut fields = Vec::new();
                self.skip_ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Json::Obj(fields));
                }
                loop {
                    self.skip_ws();
                    if self.peek() != Some(b'"') {
                        return Err(format!("expected a key at {}", self.pos));
                    }
                    let key = self.string()?;
                    self.skip_ws();
                    if self.peek() != Some(b':') {
                        return Err(format!("expected ':' at {}", self.pos));
                    }
                    self.pos += 1;
                    let v = self.value(depth + 1)?;
                    fields.push((key, v));
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Json::Obj(fields));
                        }
                        _ => return Err(format!("expected ',' or '}}' at {}", self.pos)),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return Err(format!("expected ',' or ']' at {}", self.pos)),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') => self.expect("true", Json::Bool(true)),
            Some(b'f') => self.expect("false", Json::Bool(false)),
            Some(b'n') => self.expect("null", Json::Null),
            Some(_) => self.number(),
        }
    }
    fn number(&mut self) -> Result<Json, String> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap_or("");
        text.parse::<f64>().map(Json::Num).map_err(|_| format!("bad number at {}", start))
    }
    fn hex4(&mut self) -> Result<u32, String> {
        if self.pos + 4 > self.bytes.len() {
            return Err("short \\u escape".to_string());
        }
        let text = std::str::from_utf8(&self.bytes[self.pos..self.pos + 4]).map_err(|_| "bad \\u escape".to_string())?;
        let code = u32::from_str_radix(text, 16).map_err(|_| "bad \\u escape".to_string())?;
        self.pos += 4;
        Ok(code)
    }
    fn string(&mut self) -> Result<String, String> {
        self.pos += 1; // the opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return Err("unterminated string".to_string()),
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = match self.peek() {
                        Some(e) => e,
                        None => return Err("unterminated escape".to_string()),
                    };
                    self.pos += 1;
                    let ch: char = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let mut code = self.hex4()?;
                            if (0xD800..0xDC00).contains(&code) && self.bytes[self.pos..].starts_with(b"\\u") {
                                self.pos += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                } else {
                                    code = 0xFFFD;
                                }
                            }
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(format!("bad escape at {}", self.pos)),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(c),
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

// ---------------------------------------------------------------------------------------------------
// Cards. "AS" = ace of spades, "X" = joker. Two decks: a card may appear twice, so hands are lists.

const ORDER: &str = "A23456789TJQK"; // sequence order; the ace is 1 here and 14 after the king

fn log(text: &str) {
    use std::io::Write;
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let _ = writeln!(err, "{}", text);
    let _ = err.flush();
}


fn rank_of(card: &str) -> char {
    card.chars().next().unwrap_or('?')
}

fn suit_of(card: &str) -> char {
    card.chars().nth(1).unwrap_or('?')
}

fn is_wild(card: &str) -> bool {
    card == "X" || rank_of(card) == '2' // jokers and every two
}

/// Card values for scoring: joker 30, two 20, ace 15, K..8 10, 7..3 5.
fn value(card: &str) -> i64 {
    if card == "X" {
        return 30;
    }
    match rank_of(card) {
        '2' => 20,
        'A' => 15,
        'K' | 'Q' | 'J' | 'T' | '9' | '8' => 10,
        _ => 5,
    }
}

fn rank_number(rank: char, high_ace: bool) -> i64 {
    if rank == 'A' && high_ace {
        return 14;
    }
    match ORDER.find(rank) {
        Some(i) => i as i64 + 1,
        None => 0,
    }
}

/// The hand without `cards` (a multiset: two decks mean identical cards). Removes one copy per card.
fn minus(hand: &[String], cards: &[String]) -> Vec<String> {
    let mut left: Vec<String> = hand.to_vec();
    for c in cards {
        if let Some(i) = left.iter().position(|h| h == c) {
            left.remove(i);
        }
    }
    left
}

/// Does `hand` hold every card of `cards` (with multiplicity)?
fn holds_all(hand: &[String], cards: &[String]) -> bool {
    let mut left: Vec<&String> = hand.iter().collect();
    for c in cards {
        match left.iter().position(|h| *h == c) {
            Some(i) => {
                left.remove(i);
            }
            None => return false,
        }
    }
    true
}

/// A meld on the table, as `observation.melds` describes it.
struct Meld {
    id: i64,
    team: i64,
    is_set: bool,
    rank: char,
    suit: char,
    cards: Vec<String>,
    wild_index: Option<usize>,
    wild_stands_for: String,
    burraco: bool,
}

impl Meld {
    fn from_json(m: &Json) -> Meld {
        let wild = m.get("wild");
        Meld {
            id: m.get("id").int_or(-1),
            team: m.get("team").int_or(-1),
            is_set: m.get("kind").str_or("") == "set",
            rank: m.get("rank").str_or("?").chars().next().unwrap_or('?'),
            suit: m.get("suit").str_or("?").chars().next().unwrap_or('?'),
            cards: m.get("cards").strings(),
            wild_index: if wild.is_null() { None } else { Some(wild.get("index").int_or(-1) as usize) },
            wild_stands_for: wild.get("stands_for").str_or("").to_string(),
            burraco: m.get("burraco").bool_or(false),
        }
    }
    fn has_wild(&self) -> bool {
        self.wild_index.is_some()
    }
}

// ---------------------------------------------------------------------------------------------------
// Reading the table.

/// (low, high) of a sequence meld on the table, counting the wild's place (ace low = 1, high = 14).
fn sequence_span(meld: &Meld) -> Option<(i64, i64)> {
    for (i, card) in meld.cards.iter().enumerate() {
        let face: &str = if meld.wild_index == Some(i) { &meld.wild_stands_for } else { card };
        if rank_of(face) != 'A' && rank_number(rank_of(face), false) > 0 {
            // an ace alone does not say whether it is low or high
            let low = rank_number(rank_of(face), false) - i as i64;
            return Some((low, low + meld.cards.len() as i64 - 1));
        }
    }
    None
}

/// Can this natural card be added to `meld` (which end of a run, or a set of its rank)?
fn fits(card: &str, meld: &Meld) -> bool {
    if is_wild(card) {
        return false;
    }
    if meld.is_set {
        return rank_of(card) == meld.rank && meld.cards.len() < 9;
    }
    let (low, high) = match sequence_span(meld) {
        Some(span) => span,
        None => return false,
    };
    if suit_of(card) != meld.suit {
        return false;
    }
    if rank_of(card) == 'A' {
        // below a two (never when the high ace is already there), or above a king (never when the
        // sequence starts at the low ace: the ace may not be both low and high)
        return (low == 2 && high < 14) || (high == 13 && low > 1);
    }
    let n = rank_number(rank_of(card), false);
    n == low - 1 || n == high + 1
}

/// A wild may join a meld that has none yet, if there is room for it.
fn wild_fits(meld: &Meld) -> bool {
    if meld.has_wild() {
        return false;
    }
    if meld.is_set {
        return meld.cards.len() < 9;
    }
    match sequence_span(meld) {
        None => false,
        Some((low, high)) => {
            // the low end takes a wild down to the low ace, unless the high ace is there already;
            // the high end up to the high ace (13 natural cards ace to king take a 14th wild)
            let low_end = low > 2 || (low == 2 && high < 14);
            let high_end = high < 14;
            low_end || high_end
        }
    }
}

/// New melds without wilds: sets of 3+ cards of one rank and runs of 3+ in one suit.
fn natural_melds(hand: &[String]) -> Vec<Vec<String>> {
    let naturals: Vec<&String> = hand.iter().filter(|c| !is_wild(c)).collect();
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut ranks: Vec<char> = Vec::new(); // in order of first appearance
    for c in &naturals {
        if !ranks.contains(&rank_of(c)) {
            ranks.push(rank_of(c));
        }
    }
    for r in ranks {
        let same: Vec<String> = naturals.iter().filter(|c| rank_of(c) == r).map(|c| (*c).clone()).collect();
        if same.len() >= 3 {
            found.push(same.into_iter().take(9).collect());
        }
    }
    for suit in ['S', 'H', 'D', 'C'] {
        // One card per rank (a run may not hold duplicates); the ace counts high (Q-K-A), since a
        // low ace (A-2-3) would need the two, which we keep as a wild.
        let mut by_number: Vec<Option<String>> = vec![None; 16];
        for c in &naturals {
            if suit_of(c) == suit {
                let n = rank_number(rank_of(c), true);
                if n > 0 && n < 16 {
                    by_number[n as usize] = Some((*c).clone());
                }
            }
        }
        let mut run: Vec<String> = Vec::new();
        for number in 3..16 {
            if let Some(c) = &by_number[number] {
                run.push(c.clone());
                continue;
            }
            if run.len() >= 3 {
                found.push(run.clone());
            }
            run.clear();
        }
    }
    found.sort_by(|a, b| b.len().cmp(&a.len())); // longest first (a stable sort)
    found
}

/// Two natural cards that a wild would turn into a meld: a pair (5S 5D + wild) or two cards of a
/// suit one or two ranks apart (5S 6S or 5S 7S + wild).
fn near_melds(hand: &[String]) -> Vec<[String; 2]> {
    let mut naturals: Vec<String> = Vec::new();
    for c in hand {
        if !is_wild(c) && !naturals.contains(c) {
            naturals.push(c.clone());
        }
    }
    naturals.sort_by_key(|c| (suit_of(c), rank_number(rank_of(c), true)));
    let mut found: Vec<[String; 2]> = Vec::new();
    for i in 0..naturals.len() {
        for j in i + 1..naturals.len() {
            let (a, b) = (&naturals[i], &naturals[j]);
            let gap = rank_number(rank_of(b), true) - rank_number(rank_of(a), true);
            if rank_of(a) == rank_of(b) || (suit_of(a) == suit_of(b) && gap > 0 && gap <= 2) {
                found.push([a.clone(), b.clone()]);
            }
        }
    }
    found.sort_by_key(|pair| -(value(&pair[0]) + value(&pair[1]))); // unload valuable cards first
    found
}

/// How many cards of `hand` could go down without a wild: natural melds plus cards fitting `melds`.
fn meldable(hand: &[String], melds: &[&Meld]) -> usize {
    let mut used: Vec<String> = Vec::new();
    for cards in natural_melds(hand) {
        if holds_all(&minus(hand, &used), &cards) {
            used.extend(cards);
        }
    }
    let rest = minus(hand, &used);
    used.len() + rest.iter().filter(|c| melds.iter().any(|m| fits(c, m))).count()
}

// ---------------------------------------------------------------------------------------------------
// Strategy.

/// Take the discard pile when its cards meld at once with ours, else draw from the stock.
fn choose_draw(obs: &Json, melds: &[Meld]) -> Json {
    let pile = obs.get("discard_pile").strings();
    let team = obs.get("team").int_or(-1);
    let ours: Vec<&Meld> = melds.iter().filter(|m| m.team == team).collect();
    if pile.is_empty() {
        return obj(vec![("type", jstr("draw"))]);
    }
    let hand = obs.get("hand").strings();
    let mut with_pile = hand.clone();
    with_pile.extend(pile.iter().cloned());
    let gain = meldable(&with_pile, &ours) as i64 - meldable(&hand, &ours) as i64;
    if gain >= 3 || (gain >= 2 && pile.len() <= 4) {
        return obj(vec![("type", jstr("take_pile"))]);
    }
    obj(vec![("type", jstr("draw"))])
}

struct Turn<'a> {
    hand: Vec<String>,
    locked: Option<String>,
    ours: Vec<&'a Meld>,
    theirs: Vec<&'a Meld>,
    pozzetto_taken: bool,
    last_turn: bool,
    no_duplicate_sets: bool,
}

fn meld_action(cards: &[String]) -> Json {
    obj(vec![("type", jstr("meld")), ("cards", jcards(cards))])
}

fn add_action(meld: &Meld, card: &str) -> Json {
    obj(vec![("type", jstr("add")), ("meld", Json::Num(meld.id as f64)), ("cards", Json::Arr(vec![jstr(card)]))])
}

impl<'a> Turn<'a> {
    fn new(obs: &Json, melds: &'a [Meld], rules: &Json) -> Turn<'a> {
        let team = obs.get("team").int_or(-1);
        let pozzetti = obs.get("pozzetti").arr();
        let pozzetto_taken = if team >= 0 && (team as usize) < pozzetti.len() {
            pozzetti[team as usize].get("taken").bool_or(false)
        } else {
            false
        };
        Turn {
            hand: obs.get("hand").strings(),
            locked: match obs.get("locked_card") {
                Json::Str(s) => Some(s.clone()),
                _ => None,
            },
            ours: melds.iter().filter(|m| m.team == team).collect(),
            theirs: melds.iter().filter(|m| m.team != team).collect(),
            pozzetto_taken,
            last_turn: obs.get("last_turn").bool_or(false),
            no_duplicate_sets: rules.get("duplicate_sets").str_or("allowed") == "forbidden",
        }
    }

    /// The "last card" rule: after melding `used` we must still be able to end the turn.
    fn can_end_turn_after(&self, used: &[String], makes_burraco: bool) -> bool {
        if !holds_all(&self.hand, used) {
            return false;
        }
        let left = minus(&self.hand, used);
        if self.last_turn {
            // stock_end=finish_turn, the hand's last turn: keep one card to discard (any card will do)
            return !left.is_empty() && !(left.len() == 1 && Some(&left[0]) == self.locked.as_ref());
        }
        if left.is_empty() {
            return !self.pozzetto_taken; // melding everything takes the pozzetto direct
        }
        if left.len() >= 2 {
            return true;
        }
        let last = &left[0];
        if Some(last) == self.locked.as_ref() {
            return false; // the card of a one-card pile taken this turn may not be discarded
        }
        if !self.pozzetto_taken {
            return true; // that discard takes the pozzetto
        }
        let has_burraco = makes_burraco || self.ours.iter().any(|m| m.burraco);
        has_burraco && !is_wild(last) // that discard closes the hand
    }

    /// With `duplicate_sets=forbidden`, a new set of a rank we already hold as a set is refused.
    fn set_allowed(&self, cards: &[String]) -> bool {
        if !self.no_duplicate_sets {
            return true;
        }
        let naturals: Vec<&String> = cards.iter().filter(|c| !is_wild(c)).collect();
        let rank = match naturals.first() {
            Some(c) => rank_of(c),
            None => return false,
        };
        let is_set = naturals.iter().all(|c| rank_of(c) == rank);
        !is_set || !self.ours.iter().any(|m| m.is_set && m.rank == rank)
    }

    fn next_meld_or_add(&self) -> Option<Json> {
        for cards in natural_melds(&self.hand) {
            if self.set_allowed(&cards) && self.can_end_turn_after(&cards, cards.len() >= 7) {
                return Some(meld_action(&cards));
            }
        }
        // Grow the longest melds first: seven cards make a burraco.
        let mut longest: Vec<&Meld> = self.ours.clone();
        longest.sort_by(|a, b| b.cards.len().cmp(&a.cards.len()));
        for meld in &longest {
            for card in &self.hand {
                if fits(card, meld) && self.can_end_turn_after(&[card.clone()], meld.cards.len() + 1 >= 7) {
                    return Some(add_action(meld, card));
                }
            }
        }
        self.wild_play(&longest)
    }

    /// Wilds are precious (and cost 20 or 30 left in hand): use one to turn a 6-card meld into a
    /// burraco, to start a meld from a pair or a broken run while the hand is big, or to unload a
    /// small hand.
    fn wild_play(&self, longest: &[&Meld]) -> Option<Json> {
        let mut wild: Option<&String> = None; // the cheapest wild: a two before a joker
        for c in &self.hand {
            if is_wild(c) && wild.map_or(true, |w| value(c) < value(w)) {
                wild = Some(c);
            }
        }
        let wild = wild?;
        let small_hand = self.hand.len() <= 5;
        let big_hand = self.hand.len() >= 8;
        for meld in longest {
            let grows = meld.cards.len() == 6 || small_hand;
            if wild_fits(meld) && grows && self.can_end_turn_after(&[wild.clone()], meld.cards.len() + 1 >= 7) {
                return Some(add_action(meld, wild));
            }
        }
        if small_hand || big_hand {
            for pair in near_melds(&self.hand) {
                let cards = vec![pair[0].clone(), pair[1].clone(), wild.clone()];
                if self.set_allowed(&cards) && self.can_end_turn_after(&cards, false) {
                    return Some(meld_action(&cards));
                }
            }
        }
        None
    }

    /// Give nothing away: not a wild, not a card the opponents can add to their melds, not a card
    /// that works with our hand; among the rest, the most valuable (it would count against us).
    fn discard(&self) -> Option<Json> {
        let hand = &self.hand;
        let count = |c: &String| hand.iter().filter(|h| *h == c).count();
        let mut allowed: Vec<&String> = hand.iter().filter(|c| Some(*c) != self.locked.as_ref() || count(c) > 1).collect();
        if allowed.is_empty() {
            allowed = hand.iter().collect();
        }
        if self.pozzetto_taken && hand.len() == 1 && !self.last_turn {
            let natural: Vec<&String> = allowed.iter().copied().filter(|c| !is_wild(c)).collect();
            if !natural.is_empty() {
                allowed = natural; // a closing discard is never wild
            }
        }
        let near = near_melds(hand);
        let danger = |card: &String| {
            let helps_them = self.theirs.iter().any(|m| fits(card, m));
            let ours = self.ours.iter().any(|m| fits(card, m));
            let neighbours = near.iter().filter(|pair| pair[0] == *card || pair[1] == *card).count() as i64;
            (is_wild(card), helps_them, ours, neighbours, -value(card))
        };
        let mut best: Option<&String> = None;
        for c in allowed {
            if best.map_or(true, |b| danger(c) < danger(b)) {
                best = Some(c);
            }
        }
        best.map(|c| obj(vec![("type", jstr("discard")), ("card", jstr(c))]))
    }
}

fn decide(request: &Json, rules: &Json) -> Json {
    let obs = request.get("observation");
    let decision = request.get("decision").str_or("");
    let melds: Vec<Meld> = obs.get("melds").arr().iter().map(Meld::from_json).collect();
    if decision == "draw" {
        return choose_draw(obs, &melds);
    }
    if decision == "play" {
        let turn = Turn::new(obs, &melds, rules);
        if let Some(action) = turn.next_meld_or_add().or_else(|| turn.discard()) {
            return action;
        }
        log("play decision with an empty hand?");
    } else {
        log(&format!("no plan for decision {:?}", decision));
    }
    obj(vec![("type", jstr("draw"))])
}
// ---------------------------------------------------------------------------------------------------
// The protocol loop: read a line, answer requests, ignore everything we do not know.

fn send(message: &Json) -> bool {
    use std::io::Write;
    let mut line = String::new();
    message.write(&mut line);
    line.push('\n');
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(line.as_bytes()).is_ok() && out.flush().is_ok() // an unflushed answer never arrives
}

fn main() {
    use std::io::BufRead;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut rules = Json::Null;
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => break, // end of input
            Ok(_) => {}
        }
        if line.trim().is_empty() {
            continue;
        }
        let message = match Parser::parse(line.trim()) {
            Ok(m) => m,
            Err(e) => {
                log(&format!("unreadable line ({}): {}", e, line.trim()));
                continue;
            }
        };
        let ok = match message.get("type").str_or("") {
            "hello" => {
                rules = message.get("rules").clone();
                let mut text = String::new();
                rules.write(&mut text);
                log(&format!("hello: preset {} seat {} rules {}", message.get("preset").str_or("?"), message.get("seat").int_or(-1), text));
                send(&obj(vec![("type", jstr("ready")), ("name", jstr("burraco-rust-starter"))]))
            }
            "request" => {
                let action = decide(&message, &rules);
                send(&obj(vec![("type", jstr("action")), ("id", message.get("id").clone()), ("action", action)]))
            }
            "error" => {
                log(&format!("referee error: {} {}", message.get("code").str_or("?"), message.get("message").str_or("")));
                true
            }
            "result" => {
                let mut ranks = String::new();
                message.get("ranks").write(&mut ranks);
                let mut pts = String::new();
                message.get("points").write(&mut pts);
                log(&format!("result: ranks {} points {}", ranks, pts));
                true
            }
            "goodbye" => break,
            _ => true, // "event" and unknown types: nothing to do, the observation carries what we need.
        };
        if !ok {
            break; // stdout is gone: nobody is listening any more
        }
    }
}
