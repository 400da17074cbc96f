// Kozel starter bot in Rust (presets `kozel` and `kozel-3p`), standard library only.
// Written from docs/protocol.md and docs/rules/kozel.md alone.
//
// Build it (the platform compiles it the same way, with Debian's rustc 1.63):
//   mkdir -p /tmp/my-kozel && rustc --edition 2021 -O -o /tmp/my-kozel/main examples/kozel/rust/main.rs
// Run it (a folder whose `main` is a native binary is a bot):
//   arena play kozel /tmp/my-kozel builtin:random --games 10 --duplicate
// Protocol: one JSON object per line on stdin/stdout (flushed after every line); stderr is our log.
//
// Strategy in one breath: follow suit (the referee's legal_actions already enforce it), give points to
// a partner who is sure to hold the trick, take tricks that carry points with the cheapest card that
// wins, and otherwise throw the cheapest card. With 3 players: take the widow with five trumps or more
// (then discard plain tens and kings), and in a misère (the widow declined) duck: points taken are
// penalties.
//
// Making it stronger: the strategy is the `choose_*` functions and `takes_widow` in the middle of this
// file; `Cards` knows the trump order of the deck in force (`hello.rules.deck`). Ideas: remember which
// seats showed out of a suit (from `observation.tricks`), lead towards a partner's strong suit, and
// weigh the widow decision by the aces and tens held as well as the trumps.
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
// Cards. A card is rank + suit text, e.g. "TH" = ten of hearts, "6C" = six of clubs.

const PLAIN_ORDER: &str = "ATK9876"; // plain-suit ranks, high to low (a deck has the sevens or the sixes)

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

fn points(card: &str) -> i64 {
    match rank_of(card) {
        'A' => 11,
        'T' => 10,
        'K' => 4,
        'Q' => 3,
        'J' => 2,
        _ => 0, // 9 8 7 6 are worth nothing
    }
}

/// Knows which cards are trumps and how cards compare, for the deck in force (from `hello`).
struct Cards {
    trumps: Vec<String>, // high to low
    deck: Vec<String>,
}

impl Cards {
    fn new(deck: &str) -> Cards {
        let no_sixes = deck == "no-sixes";
        let low = if no_sixes { "7" } else { "6" };
        // The permanent trumps, high to low. With the no-sixes deck 6C is gone and the diamonds end in 7D.
        let mut trumps: Vec<String> = Vec::new();
        if !no_sixes {
            trumps.push("6C".to_string());
        }
        for t in ["QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"] {
            trumps.push(t.to_string());
        }
        for r in format!("ATK98{}", low).chars() {
            trumps.push(format!("{}D", r));
        }
        let mut all = trumps.clone();
        let clubs = if no_sixes { "ATK987" } else { "ATK98" }; // with no-sevens the six of clubs is a trump
        for (suit, ranks) in [('C', clubs.to_string()), ('S', format!("ATK98{}", low)), ('H', format!("ATK98{}", low))] {
            for r in ranks.chars() {
                all.push(format!("{}{}", r, suit));
            }
        }
        Cards { trumps, deck: all }
    }

    fn is_trump(&self, card: &str) -> bool {
        self.trumps.iter().any(|t| t == card)
    }

    /// The suit a card follows: 'T' (for "trump") for every trump, else its own letter.
    fn suit(&self, card: &str) -> char {
        if self.is_trump(card) {
            'T'
        } else {
            suit_of(card)
        }
    }

    /// Bigger = stronger. Any trump beats any plain card; inside a plain suit, the rank order decides.
    fn strength(&self, card: &str) -> i64 {
        if let Some(i) = self.trumps.iter().position(|t| t == card) {
            return 100 - i as i64;
        }
        match PLAIN_ORDER.find(rank_of(card)) {
            Some(i) => 10 - i as i64,
            None => 0,
        }
    }

    /// Does `card` beat the trick's current best card `best`, when suit `led` was led?
    fn beats(&self, card: &str, best: &str, led: char) -> bool {
        if self.is_trump(card) != self.is_trump(best) {
            return self.is_trump(card);
        }
        if !self.is_trump(card) && self.suit(card) != led {
            return false; // an off-suit plain card never wins
        }
        self.strength(card) > self.strength(best)
    }
}

/// `observation.led` as one letter: 'T' for "trump", else the suit letter; '?' when nothing is led.
fn led_of(obs: &Json) -> char {
    match obs.get("led").str_or("") {
        "trump" => 'T',
        s => s.chars().next().unwrap_or('?'),
    }
}

/// The element of `items` with the greatest key (the first of equals).
fn max_by<T: Clone, K: PartialOrd, F: Fn(&T) -> K>(items: &[T], key: F) -> Option<T> {
    let mut best: Option<(&T, K)> = None;
    for item in items {
        let k = key(item);
        let better = match &best {
            None => true,
            Some((_, bk)) => k > *bk,
        };
        if better {
            best = Some((item, k));
        }
    }
    best.map(|(item, _)| item.clone())
}

/// The element of `items` with the smallest key (the first of equals).
fn min_by<T: Clone, K: PartialOrd, F: Fn(&T) -> K>(items: &[T], key: F) -> Option<T> {
    let mut best: Option<(&T, K)> = None;
    for item in items {
        let k = key(item);
        let better = match &best {
            None => true,
            Some((_, bk)) => k < *bk,
        };
        if better {
            best = Some((item, k));
        }
    }
    best.map(|(item, _)| item.clone())
}

// ---------------------------------------------------------------------------------------------------
// Strategy. Everything we need is in the request's observation, so this bot ignores events.

/// Cards that some other seat may still hold: the deck minus our hand, what was played, our own discard.
fn unseen_cards(cards: &Cards, obs: &Json) -> Vec<String> {
    let mut seen: Vec<String> = obs.get("hand").strings();
    seen.extend(obs.get("trick").strings());
    seen.extend(obs.get("discard").strings());
    for trick in obs.get("tricks").arr() {
        seen.extend(trick.get("cards").strings());
    }
    cards.deck.iter().filter(|c| !seen.contains(c)).cloned().collect()
}

/// True if no card still out can beat `card`. Conservative: any trump out beats a plain card.
fn sure_winner(cards: &Cards, card: &str, led: char, unseen: &[String]) -> bool {
    !unseen.iter().any(|other| cards.beats(other, card, led))
}

fn choose_lead(cards: &Cards, obs: &Json, hand: &[String]) -> Option<String> {
    let unseen = unseen_cards(cards, obs);
    let trumps: Vec<String> = hand.iter().filter(|c| cards.is_trump(c)).cloned().collect();
    let plain: Vec<String> = hand.iter().filter(|c| !cards.is_trump(c)).cloned().collect();
    // With plenty of trumps, pull the opponents' trumps with a trump nobody can beat.
    if trumps.len() >= 3 {
        if let Some(top) = max_by(&trumps, |c| cards.strength(c)) {
            if sure_winner(cards, &top, 'T', &unseen) {
                return Some(top);
            }
        }
    }
    // A plain card that wins for sure (e.g. an ace once nothing out can trump it) collects points.
    let winners: Vec<String> = plain.iter().filter(|c| sure_winner(cards, c, cards.suit(c), &unseen)).cloned().collect();
    if !winners.is_empty() {
        return max_by(&winners, |c| points(c));
    }
    // Otherwise lead something cheap and let the others spend their cards.
    if !plain.is_empty() {
        return min_by(&plain, |c| (points(c), cards.strength(c)));
    }
    min_by(&trumps, |c| (points(c), cards.strength(c)))
}

fn choose_follow(cards: &Cards, obs: &Json, hand: &[String]) -> Option<String> {
    let players = obs.get("players").int_or(4).max(1);
    let seat = obs.get("seat").int_or(-1);
    let leader = obs.get("leader").int_or(0);
    let trick = obs.get("trick").strings();
    let led = led_of(obs);
    if trick.is_empty() {
        return None;
    }
    let sides = obs.get("sides").arr();
    let my_side: Vec<i64> = match obs.get("my_side") {
        Json::Num(n) if (*n as usize) < sides.len() => sides[*n as usize].ints(),
        _ => vec![seat],
    };
    let mut best_i = 0;
    for i in 0..trick.len() {
        if cards.beats(&trick[i], &trick[best_i], led) {
            best_i = i;
        }
    }
    let best = trick[best_i].clone();
    let best_seat = (leader + best_i as i64) % players;
    let last = trick.len() as i64 == players - 1;
    let on_table: i64 = trick.iter().map(|c| points(c)).sum();
    let unseen = unseen_cards(cards, obs);

    // A partner holds the trick for sure: give them our richest card (plain first: trumps are power).
    if my_side.contains(&best_seat) && best_seat != seat && (last || sure_winner(cards, &best, led, &unseen)) {
        return max_by(hand, |c| (points(c) - if cards.is_trump(c) { 5 } else { 0 }, -cards.strength(c)));
    }

    let winning: Vec<String> = hand.iter().filter(|c| cards.beats(c, &best, led)).cloned().collect();
    if !my_side.contains(&best_seat) && !winning.is_empty() {
        // A plain card of the led suit that wins brings its own points home: play the richest such card.
        let plain: Vec<String> = winning.iter().filter(|c| !cards.is_trump(c)).cloned().collect();
        if let Some(richest) = max_by(&plain, |c| points(c)) {
            if last || sure_winner(cards, &richest, led, &unseen) {
                return Some(richest);
            }
        }
        // Otherwise win with the lowest trump, if the trick is worth it. Trumps are our power, so
        // queens and the six of clubs are kept for rich tricks and jacks for tricks worth something.
        if let Some(lowest) = min_by(&winning, |c| cards.strength(c)) {
            let need = match rank_of(&lowest) {
                'Q' | '6' => 10,
                'J' => 4,
                _ => 1,
            };
            if on_table >= need {
                return Some(lowest);
            }
        }
    }
    // Lose as few points as possible; among equal points keep the stronger cards for later.
    min_by(hand, |c| (points(c), cards.is_trump(c), cards.strength(c)))
}

/// The soloist's discard counts for the soloist for sure: bury plain tens and kings we could lose.
fn choose_discard(cards: &Cards, hand: &[String]) -> Vec<String> {
    let keep_value = |card: &String| -> i64 {
        if cards.is_trump(card) || rank_of(card) == 'A' {
            return 100 + cards.strength(card); // never throw away power
        }
        let ace = format!("A{}", suit_of(card));
        let ace_guard = rank_of(card) == 'T' && hand.contains(&ace); // a ten behind its own ace is safe
        (if ace_guard { 50 } else { 0 }) - points(card)
    };
    let mut sorted: Vec<String> = hand.to_vec();
    sorted.sort_by_key(|c| keep_value(c)); // a stable sort: equal cards keep the hand's order
    sorted.truncate(2);
    sorted
}

/// Playing alone against two needs power: five trumps or more.
fn takes_widow(cards: &Cards, hand: &[String]) -> bool {
    hand.iter().filter(|c| cards.is_trump(c)).count() >= 5
}

/// Everyone for themselves, penalised for points taken: lead the weakest card; when following, play the
/// richest card that still loses the trick (let someone else take our points), else the weakest.
fn choose_misere(cards: &Cards, obs: &Json, hand: &[String]) -> Option<String> {
    let trick = obs.get("trick").strings();
    if trick.is_empty() {
        return min_by(hand, |c| (cards.strength(c), points(c)));
    }
    let led = led_of(obs);
    let mut best = trick[0].clone();
    for card in &trick[1..] {
        if cards.beats(card, &best, led) {
            best = card.clone();
        }
    }
    let losing: Vec<String> = hand.iter().filter(|c| !cards.beats(c, &best, led)).cloned().collect();
    if !losing.is_empty() {
        return max_by(&losing, |c| (points(c), cards.strength(c)));
    }
    min_by(hand, |c| cards.strength(c))
}

fn same_cards(a: &[String], b: &[String]) -> bool {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort();
    b.sort();
    a == b
}

fn play(card: String) -> Json {
    obj(vec![("type", jstr("play")), ("card", Json::Str(card))])
}

fn decide(request: &Json, cards: &Cards) -> Json {
    let obs = request.get("observation");
    let legal: Vec<&Json> = request.get("legal_actions").arr().iter().collect();
    // The cards we may play now (the referee already applied the follow-suit rule).
    let hand: Vec<String> = legal.iter().filter(|a| a.get("type").str_or("") == "play").filter_map(|a| match a.get("card") {
        Json::Str(s) => Some(s.clone()),
        _ => None,
    }).collect();
    let decision = request.get("decision").str_or("");
    let misere = obs.get("contract").str_or("") == "misere";
    let choice: Option<Json> = match decision {
        "widow" => {
            let take = takes_widow(cards, &obs.get("hand").strings());
            legal.iter().find(|a| a.get("take").bool_or(!take) == take).map(|a| (*a).clone())
        }
        "lead" | "follow" if !hand.is_empty() && misere => choose_misere(cards, obs, &hand).map(play),
        "discard" => {
            // The widow joins the hand; add it in case the observation lists it apart.
            let mut twelve = obs.get("hand").strings();
            for c in obs.get("widow").strings() {
                if !twelve.contains(&c) {
                    twelve.push(c);
                }
            }
            let pick = choose_discard(cards, &twelve);
            legal.iter().find(|a| same_cards(&a.get("cards").strings(), &pick)).map(|a| (*a).clone())
        }
        "lead" if !hand.is_empty() => choose_lead(cards, obs, &hand).map(play),
        "follow" if !hand.is_empty() => choose_follow(cards, obs, &hand).map(play),
        _ => None,
    };
    match choice {
        Some(action) => action,
        None => {
            log(&format!("no plan for decision {:?} - playing the first legal action", decision));
            match legal.first() {
                Some(a) => (*a).clone(),
                None => obj(vec![("type", jstr("play"))]),
            }
        }
    }
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
    let mut cards = Cards::new("no-sevens");
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
                let deck = message.get("rules").get("deck").str_or("no-sevens");
                cards = Cards::new(deck);
                log(&format!("hello: preset {} seat {} deck {}", message.get("preset").str_or("?"), message.get("seat").int_or(-1), deck));
                send(&obj(vec![("type", jstr("ready")), ("name", jstr("kozel-rust-starter"))]))
            }
            "request" => {
                let action = decide(&message, &cards);
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
