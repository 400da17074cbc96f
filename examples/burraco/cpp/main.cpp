// Burraco starter bot in C++ (presets `burraco` and `burraco-2p`), written from docs/protocol.md and
// docs/rules/burraco.md alone; C++20, standard library only.
//
// Build and run it locally (the platform compiles it the same way, without -Wall -Wextra):
//   mkdir -p /tmp/kit-burraco-cpp
//   g++ -std=c++20 -O2 -pipe -Wall -Wextra -o /tmp/kit-burraco-cpp/main examples/burraco/cpp/main.cpp
//   arena play burraco-2p /tmp/kit-burraco-cpp builtin:random --games 4 --duplicate
// The folder holding the binary `main` is the bot. To upload, give the platform this folder
// (main.cpp): it compiles every .cpp file with `g++ -std=c++20 -O2 -pipe -o main <files>`.
// Protocol: one JSON object per line on stdin/stdout; stderr is our log (the referee keeps its last
// 20 lines).
//
// Burraco requests carry no legal_actions list (`null`: too many to list), so this bot builds its
// actions from the rules page and checks them itself. One turn is several requests: `draw`, then
// `play` again and again (one meld, add or discard each) until a discard ends the turn.
//
// Strategy: draw from the stock unless the discard pile melds at once with our cards; put down every
// natural set (3+ of a rank) and run (3+ in a suit); add natural cards to our team's melds; spend a
// wild (joker or two) only to make a burraco or to empty a small hand; discard a card that helps
// neither the opponents' melds nor our own hand. Every meld keeps the "last card" rule (see
// can_end_turn_after), so the bot can always end its turn with a legal discard.
//
// Making it stronger: the strategy section (choose_draw, Turn::next_meld_or_add, Turn::wild_play,
// Turn::discard). Ideas: remember the cards the opponents took from the pile (`take_pile` events)
// and never feed their sets; hold melds back while the opponents are far from closing; aim for a
// clean burraco before the pozzetto; close as soon as the team has a burraco and the score leads.
// Whatever you change, keep can_end_turn_after in every meld and add: the referee refuses a meld
// that leaves the hand unable to end the turn, and a refused action forfeits the match.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
// ---------------------------------------------------------------------------------------------------
// A small JSON reader and writer (the standard library has none). Enough for the protocol: objects,
// arrays, strings with every escape (\uXXXX and surrogate pairs included), numbers, true/false/null.
// Unknown fields are simply never looked at. A missing key or index reads as null, never throws.

struct Json {
    enum Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Null;
    bool boolean = false;
    double number = 0;
    std::string text;  // a string's value, or a number's original text (so an id is echoed exactly)
    std::vector<Json> items;
    std::vector<std::pair<std::string, Json>> fields;

    static const Json& none() {
        static const Json null_value;
        return null_value;
    }
    const Json& operator[](const std::string& key) const {
        if (kind == Object)
            for (const auto& [k, v] : fields)
                if (k == key) return v;
        return none();
    }
    const Json& operator[](std::size_t i) const { return kind == Array && i < items.size() ? items[i] : none(); }
    bool is_null() const { return kind == Null; }
    bool is_array() const { return kind == Array; }
    bool is_object() const { return kind == Object; }
    std::size_t size() const { return kind == Array ? items.size() : 0; }
    std::string str(const std::string& otherwise = "") const { return kind == String ? text : otherwise; }
    long long integer(long long otherwise = 0) const {
        return kind == Number ? static_cast<long long>(number) : otherwise;
    }
    bool truthy() const {  // Python's truth: false, null, 0, "", [] and {} are false
        switch (kind) {
            case Null: return false;
            case Bool: return boolean;
            case Number: return number != 0;
            case String: return !text.empty();
            case Array: return !items.empty();
            case Object: return !fields.empty();
        }
        return false;
    }
    std::vector<std::string> strings() const {  // a list of card texts (non-strings skipped)
        std::vector<std::string> out;
        for (const auto& item : items)
            if (item.kind == String) out.push_back(item.text);
        return out;
    }
};

class JsonParser {
public:
    explicit JsonParser(const std::string& s) : s_(s) {}
    Json parse() {
        Json value = parse_value(0);
        skip_space();
        if (pos_ != s_.size()) throw std::runtime_error("trailing characters after JSON");
        return value;
    }

private:
    const std::string& s_;
    std::size_t pos_ = 0;

    [[noreturn]] void fail(const char* what) const {
        throw std::runtime_error(std::string("bad JSON: ") + what + " at " + std::to_string(pos_));
    }
    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
            ++pos_;
    }
    bool take(char c) {
        skip_space();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect_word(const char* word) {
        for (const char* p = word; *p; ++p, ++pos_)
            if (pos_ >= s_.size() || s_[pos_] != *p) fail("unknown literal");
    }
    Json parse_value(int depth) {
        if (depth > 200) fail("nested too deep");
        skip_space();
        if (pos_ >= s_.size()) fail("unexpected end");
        Json v;
        char c = s_[pos_];
        if (c == '{') {
            ++pos_;
            v.kind = Json::Object;
            if (take('}')) return v;
            do {
                skip_space();
                if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a key");
                std::string key = parse_string();
                if (!take(':')) fail("expected ':'");
                v.fields.emplace_back(std::move(key), parse_value(depth + 1));
            } while (take(','));
            if (!take('}')) fail("expected '}'");
        } else if (c == '[') {
            ++pos_;
            v.kind = Json::Array;
            if (take(']')) return v;
            do v.items.push_back(parse_value(depth + 1));
            while (take(','));
            if (!take(']')) fail("expected ']'");
        } else if (c == '"') {
            v.kind = Json::String;
            v.text = parse_string();
        } else if (c == 't') {
            expect_word("true");
            v.kind = Json::Bool;
            v.boolean = true;
        } else if (c == 'f') {
            expect_word("false");
            v.kind = Json::Bool;
        } else if (c == 'n') {
            expect_word("null");
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            std::size_t start = pos_;
            if (s_[pos_] == '-') ++pos_;
            while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                        s_[pos_] == 'e' || s_[pos_] == 'E' || s_[pos_] == '+' || s_[pos_] == '-'))
                ++pos_;
            v.kind = Json::Number;
            v.text = s_.substr(start, pos_ - start);
            char* end = nullptr;
            v.number = std::strtod(v.text.c_str(), &end);
            if (end == v.text.c_str()) fail("bad number");
        } else {
            fail("unexpected character");
        }
        return v;
    }
    unsigned hex4() {
        if (pos_ + 4 > s_.size()) fail("short \\u escape");
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
            char h = s_[pos_++];
            code <<= 4;
            if (h >= '0' && h <= '9') code |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') code |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') code |= static_cast<unsigned>(h - 'A' + 10);
            else fail("bad \\u escape");
        }
        return code;
    }
    static void put_utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }
    std::string parse_string() {
        ++pos_;  // the opening quote
        std::string out;
        while (true) {
            if (pos_ >= s_.size()) fail("unterminated string");
            char c = s_[pos_++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= s_.size()) fail("unterminated escape");
            char e = s_[pos_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = hex4();
                    if (code >= 0xD800 && code <= 0xDBFF && pos_ + 6 <= s_.size() && s_[pos_] == '\\' &&
                        s_[pos_ + 1] == 'u') {
                        std::size_t back = pos_;
                        pos_ += 2;
                        unsigned low = hex4();
                        if (low >= 0xDC00 && low <= 0xDFFF) code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        else pos_ = back;
                    }
                    if (code >= 0xD800 && code <= 0xDFFF) code = 0xFFFD;  // a lone surrogate
                    put_utf8(out, code);
                    break;
                }
                default: fail("unknown escape");
            }
        }
    }
};

// Writing: quote() makes a JSON string; dump() writes any value back (compact, one line).
std::string quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

std::string dump(const Json& v) {
    switch (v.kind) {
        case Json::Null: return "null";
        case Json::Bool: return v.boolean ? "true" : "false";
        case Json::Number: return v.text.empty() ? std::to_string(v.number) : v.text;
        case Json::String: return quote(v.text);
        case Json::Array: {
            std::string out = "[";
            for (std::size_t i = 0; i < v.items.size(); ++i) out += (i ? "," : "") + dump(v.items[i]);
            return out + "]";
        }
        case Json::Object: {
            std::string out = "{";
            for (std::size_t i = 0; i < v.fields.size(); ++i)
                out += (i ? "," : "") + quote(v.fields[i].first) + ":" + dump(v.fields[i].second);
            return out + "}";
        }
    }
    return "null";
}

std::string card_list(const std::vector<std::string>& cards) {
    std::string out = "[";
    for (std::size_t i = 0; i < cards.size(); ++i) out += (i ? "," : "") + quote(cards[i]);
    return out + "]";
}

// ---------------------------------------------------------------------------------------------------
// Logging: stderr is our log. Flushed at once, so each line lands beside its decision.

template <typename... Parts>
void log(const Parts&... parts) {
    (std::cerr << ... << parts) << std::endl;
}

// ---------------------------------------------------------------------------------------------------
// Cards. "5H" = five of hearts, "X" = a joker. Two decks: a hand may hold the same card twice, so
// hands are lists (multisets) of card texts.

using Cards = std::vector<std::string>;
const std::string ORDER = "A23456789TJQK";  // sequence order; the ace is 1 here and 14 after the king

bool is_wild(const std::string& card) { return card == "X" || (!card.empty() && card[0] == '2'); }

int value(const std::string& card) {  // joker 30, two 20, ace 15, K..8 10, 7..3 5
    if (card == "X") return 30;
    if (card.empty()) return 0;
    if (card[0] == '2') return 20;
    if (card[0] == 'A') return 15;
    return std::string("KQJT98").find(card[0]) != std::string::npos ? 10 : 5;
}

int rank_number(char rank, bool high_ace = false) {
    if (rank == 'A' && high_ace) return 14;
    std::size_t i = ORDER.find(rank);
    return i == std::string::npos ? 0 : static_cast<int>(i) + 1;
}

char suit_of(const std::string& card) { return card.size() >= 2 ? card[1] : '?'; }

std::size_t count(const Cards& cards, const std::string& card) {
    return static_cast<std::size_t>(std::count(cards.begin(), cards.end(), card));
}

bool contains(const Cards& cards, const std::string& card) { return count(cards, card) > 0; }

Cards minus(const Cards& hand, const Cards& used) {
    // The hand without `used` (a multiset: each used card removes one copy).
    Cards left = hand;
    for (const auto& c : used) {
        auto it = std::find(left.begin(), left.end(), c);
        if (it != left.end()) left.erase(it);
    }
    return left;
}

bool is_subset(const Cards& part, const Cards& whole) {  // as multisets
    std::map<std::string, int> need;
    for (const auto& c : part) ++need[c];
    for (const auto& [card, n] : need)
        if (static_cast<int>(count(whole, card)) < n) return false;
    return true;
}

// ---------------------------------------------------------------------------------------------------
// Reading the table.

struct Meld {
    Json id;  // sent back as it came
    long long team = -1;
    std::string kind, rank, suit;
    Cards cards;
    bool has_wild = false;
    long long wild_index = -1;
    std::string stands_for;
    bool burraco = false;

    explicit Meld(const Json& m)
        : id(m["id"]), team(m["team"].integer(-1)), kind(m["kind"].str()), rank(m["rank"].str()),
          suit(m["suit"].str()), cards(m["cards"].strings()), burraco(m["burraco"].truthy()) {
        const Json& wild = m["wild"];
        if (wild.is_object() && wild.truthy()) {
            has_wild = true;
            wild_index = wild["index"].integer(-1);
            stands_for = wild["stands_for"].str();
        }
    }
};

std::optional<std::pair<int, int>> sequence_span(const Meld& meld) {
    // (low, high) of a sequence meld on the table, counting the wild's place (ace low = 1, high = 14).
    for (std::size_t i = 0; i < meld.cards.size(); ++i) {
        std::string face = meld.has_wild && meld.wild_index == static_cast<long long>(i) ? meld.stands_for : meld.cards[i];
        if (!face.empty() && face[0] != 'A') {  // an ace alone does not say whether it is low or high
            int low = rank_number(face[0]) - static_cast<int>(i);
            return std::make_pair(low, low + static_cast<int>(meld.cards.size()) - 1);
        }
    }
    return std::nullopt;
}

bool fits(const std::string& card, const Meld& meld) {
    // Can this natural card be added to `meld` (at an end of a run, or to a set of its rank)?
    if (is_wild(card) || card.empty()) return false;
    if (meld.kind == "set") return !meld.rank.empty() && card[0] == meld.rank[0] && meld.cards.size() < 9;
    auto span = sequence_span(meld);
    if (!span || meld.suit.empty() || suit_of(card) != meld.suit[0]) return false;
    auto [low, high] = *span;
    if (card[0] == 'A') return low == 2 || high == 13;
    int n = rank_number(card[0]);
    return n == low - 1 || n == high + 1;
}

bool wild_fits(const Meld& meld) {
    // A wild may join a meld that has none yet, if there is room for it.
    if (meld.has_wild) return false;
    if (meld.kind == "set") return meld.cards.size() < 9;
    auto span = sequence_span(meld);
    return span && (span->first > 1 || span->second < 14);
}

std::vector<Cards> natural_melds(const Cards& hand) {
    // New melds without wilds: sets of 3+ cards of one rank and runs of 3+ in one suit.
    Cards naturals;
    for (const auto& c : hand)
        if (!is_wild(c) && c.size() >= 2) naturals.push_back(c);
    std::vector<Cards> found;
    std::string ranks_seen;  // ranks in order of first appearance
    for (const auto& c : naturals)
        if (ranks_seen.find(c[0]) == std::string::npos) ranks_seen += c[0];
    for (char rank : ranks_seen) {
        Cards set;
        for (const auto& c : naturals)
            if (c[0] == rank && set.size() < 9) set.push_back(c);
        if (set.size() >= 3) found.push_back(set);
    }
    for (char suit : std::string("SHDC")) {
        // One card per rank (a run may not hold duplicates); the ace counts high (Q-K-A), since a
        // low ace (A-2-3) would need the two, which we keep as a wild.
        std::map<int, std::string> by_number;
        for (const auto& c : naturals)
            if (c[1] == suit) by_number[rank_number(c[0], true)] = c;
        Cards run;
        for (int number = 3; number <= 15; ++number) {
            auto it = by_number.find(number);
            if (it != by_number.end()) {
                run.push_back(it->second);
                continue;
            }
            if (run.size() >= 3) found.push_back(run);
            run.clear();
        }
    }
    std::stable_sort(found.begin(), found.end(), [](const Cards& a, const Cards& b) { return a.size() > b.size(); });
    return found;
}

std::vector<Cards> near_melds(const Cards& hand) {
    // Two natural cards that a wild would turn into a meld: a pair (5S 5D + wild) or two cards of a
    // suit one or two ranks apart (5S 6S or 5S 7S + wild).
    std::set<std::string> distinct;
    for (const auto& c : hand)
        if (!is_wild(c) && c.size() >= 2) distinct.insert(c);
    Cards naturals(distinct.begin(), distinct.end());
    std::sort(naturals.begin(), naturals.end(), [](const std::string& a, const std::string& b) {
        return std::make_pair(a[1], rank_number(a[0], true)) < std::make_pair(b[1], rank_number(b[0], true));
    });
    std::vector<Cards> found;
    for (std::size_t i = 0; i < naturals.size(); ++i)
        for (std::size_t j = i + 1; j < naturals.size(); ++j) {
            const auto &a = naturals[i], &b = naturals[j];
            int gap = rank_number(b[0], true) - rank_number(a[0], true);
            if (a[0] == b[0] || (a[1] == b[1] && gap > 0 && gap <= 2)) found.push_back({a, b});
        }
    std::stable_sort(found.begin(), found.end(), [](const Cards& a, const Cards& b) {  // unload valuable cards first
        return value(a[0]) + value(a[1]) > value(b[0]) + value(b[1]);
    });
    return found;
}

int meldable(const Cards& hand, const std::vector<Meld>& melds) {
    // How many cards of `hand` could go down without a wild: natural melds plus cards fitting `melds`.
    Cards used;
    for (const auto& cards : natural_melds(hand))
        if (is_subset(cards, minus(hand, used))) used.insert(used.end(), cards.begin(), cards.end());
    int n = static_cast<int>(used.size());
    for (const auto& c : minus(hand, used))
        if (std::any_of(melds.begin(), melds.end(), [&](const Meld& m) { return fits(c, m); })) ++n;
    return n;
}

// ---------------------------------------------------------------------------------------------------
// Strategy.

struct Rules {
    bool duplicate_sets_forbidden = false;  // hello.rules.duplicate_sets == "forbidden"
};

std::vector<Meld> team_melds(const Json& obs, bool ours) {
    long long team = obs["team"].integer(-1);
    std::vector<Meld> out;
    for (const auto& m : obs["melds"].items)
        if ((m["team"].integer(-2) == team) == ours) out.emplace_back(m);
    return out;
}

std::string choose_draw(const Json& obs) {
    // Take the discard pile when its cards meld at once with ours, else draw from the stock.
    Cards pile = obs["discard_pile"].strings(), hand = obs["hand"].strings();
    if (pile.empty()) return "{\"type\":\"draw\"}";
    std::vector<Meld> ours = team_melds(obs, true);
    Cards both = hand;
    both.insert(both.end(), pile.begin(), pile.end());
    int gain = meldable(both, ours) - meldable(hand, ours);
    if (gain >= 3 || (gain >= 2 && pile.size() <= 4)) {
        log("taking the pile (", pile.size(), " cards): ", gain, " more cards to meld");
        return "{\"type\":\"take_pile\"}";
    }
    return "{\"type\":\"draw\"}";
}

std::string meld_action(const Cards& cards) { return "{\"type\":\"meld\",\"cards\":" + card_list(cards) + "}"; }

std::string add_action(const Meld& meld, const std::string& card) {
    return "{\"type\":\"add\",\"meld\":" + dump(meld.id) + ",\"cards\":" + card_list({card}) + "}";
}

class Turn {
public:
    Turn(const Json& obs, const Rules& rules)
        : rules_(rules), hand_(obs["hand"].strings()), ours_(team_melds(obs, true)), theirs_(team_melds(obs, false)),
          locked_(obs["locked_card"].str()), last_turn_(obs["last_turn"].truthy()) {
        pozzetto_taken_ = obs["pozzetti"][static_cast<std::size_t>(obs["team"].integer(0))]["taken"].truthy();
        // Grow the longest melds first: seven cards make a burraco.
        std::stable_sort(ours_.begin(), ours_.end(),
                         [](const Meld& a, const Meld& b) { return a.cards.size() > b.cards.size(); });
    }

    // The "last card" rule: after melding `used` we must still be able to end the turn.
    bool can_end_turn_after(const Cards& used, bool makes_burraco = false) const {
        Cards left = minus(hand_, used);
        if (last_turn_) return !left.empty();  // stock_end=finish_turn: keep one card for the final discard
        if (left.empty()) return !pozzetto_taken_;  // melding everything takes the pozzetto direct
        if (left.size() >= 2) return true;
        const std::string& last = left[0];
        if (last == locked_) return false;  // the card of a one-card pile taken this turn may not be discarded
        if (!pozzetto_taken_) return true;  // that discard takes the pozzetto
        bool has_burraco = makes_burraco || std::any_of(ours_.begin(), ours_.end(), [](const Meld& m) { return m.burraco; });
        return has_burraco && !is_wild(last);  // that discard closes the hand
    }

    std::optional<std::string> next_meld_or_add() const {
        for (const auto& cards : natural_melds(hand_))
            if (set_allowed(cards) && can_end_turn_after(cards, cards.size() >= 7)) return meld_action(cards);
        for (const auto& meld : ours_)
            for (const auto& card : hand_)
                if (fits(card, meld) && can_end_turn_after({card}, meld.cards.size() + 1 >= 7))
                    return add_action(meld, card);
        return wild_play();
    }

    std::optional<std::string> wild_play() const {
        // Wilds are precious (and cost 20 or 30 left in hand): use one to turn a 6-card meld into a
        // burraco, to start a meld from a pair or a broken run while the hand is big, or to unload a
        // small hand.
        std::optional<std::string> wild;  // the cheapest: a two before a joker
        for (const auto& c : hand_)
            if (is_wild(c) && (!wild || value(c) < value(*wild))) wild = c;
        if (!wild) return std::nullopt;
        bool small_hand = hand_.size() <= 5, big_hand = hand_.size() >= 8;
        for (const auto& meld : ours_) {
            bool grows = meld.cards.size() == 6 || small_hand;
            if (wild_fits(meld) && grows && can_end_turn_after({*wild}, meld.cards.size() + 1 >= 7))
                return add_action(meld, *wild);
        }
        if (small_hand || big_hand)
            for (const auto& pair : near_melds(hand_)) {
                Cards cards = {pair[0], pair[1], *wild};
                if (set_allowed(cards) && can_end_turn_after(cards)) return meld_action(cards);
            }
        return std::nullopt;
    }

    std::string discard() const {
        // Give nothing away: not a wild, not a card the opponents can add to their melds, not a card
        // that works with our hand; among the rest, the most valuable (it would count against us).
        Cards allowed;
        for (const auto& c : hand_)
            if (c != locked_ || count(hand_, c) > 1) allowed.push_back(c);
        if (allowed.empty()) allowed = hand_;
        if (pozzetto_taken_ && hand_.size() == 1 && !last_turn_) {  // a closing discard is never wild
            Cards natural;
            for (const auto& c : allowed)
                if (!is_wild(c)) natural.push_back(c);
            if (!natural.empty()) allowed = natural;
        }
        std::vector<Cards> pairs = near_melds(hand_);
        auto danger = [&](const std::string& card) {
            bool helps_them = std::any_of(theirs_.begin(), theirs_.end(), [&](const Meld& m) { return fits(card, m); });
            bool helps_us = std::any_of(ours_.begin(), ours_.end(), [&](const Meld& m) { return fits(card, m); });
            int neighbours = 0;
            for (const auto& p : pairs) neighbours += p[0] == card || p[1] == card;
            return std::make_tuple(is_wild(card), helps_them, helps_us, neighbours, -value(card));
        };
        std::string best;
        for (const auto& c : allowed)
            if (best.empty() || danger(c) < danger(best)) best = c;
        return "{\"type\":\"discard\",\"card\":" + quote(best) + "}";
    }

private:
    const Rules& rules_;
    Cards hand_;
    std::vector<Meld> ours_, theirs_;
    std::string locked_;
    bool last_turn_ = false, pozzetto_taken_ = false;

    bool set_allowed(const Cards& cards) const {
        // With duplicate_sets=forbidden a second set of a rank our team already holds as a set is refused.
        if (!rules_.duplicate_sets_forbidden) return true;
        std::string rank;
        for (const auto& c : cards)
            if (!is_wild(c)) {
                if (!rank.empty() && rank[0] != c[0]) return true;  // not a set: a sequence
                rank = std::string(1, c[0]);
            }
        return std::none_of(ours_.begin(), ours_.end(), [&](const Meld& m) { return m.kind == "set" && m.rank == rank; });
    }
};

std::string decide(const Json& request, const Rules& rules) {
    const Json& obs = request["observation"];
    std::string decision = request["decision"].str(obs["decision"].str());
    if (decision == "draw") return choose_draw(obs);
    if (decision == "play") {
        Turn turn(obs, rules);
        if (auto action = turn.next_meld_or_add()) return *action;
        return turn.discard();
    }
    log("no plan for decision ", decision);
    return "{\"type\":\"draw\"}";
}

std::string fallback(const Json& request) {
    // If the strategy ever fails: draw, or discard the first card we may discard.
    const Json& obs = request["observation"];
    if (request["decision"].str() != "play") return "{\"type\":\"draw\"}";
    Cards hand = obs["hand"].strings();
    std::string locked = obs["locked_card"].str();
    for (const auto& c : hand)
        if (c != locked || count(hand, c) > 1) return "{\"type\":\"discard\",\"card\":" + quote(c) + "}";
    return "{\"type\":\"discard\",\"card\":" + quote(hand.empty() ? "X" : hand[0]) + "}";
}

// ---------------------------------------------------------------------------------------------------
// The protocol loop: read a line, answer requests, ignore everything we do not know.

void send(const std::string& line) {
    std::cout << line << '\n' << std::flush;  // an unflushed answer never arrives
}

int main() {
    std::ios::sync_with_stdio(false);
    Rules rules;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r\n") == std::string::npos) continue;
        Json message;
        try {
            message = JsonParser(line).parse();
        } catch (const std::exception& e) {
            log("could not read a line: ", e.what());
            continue;
        }
        std::string kind = message["type"].str();
        if (kind == "hello") {
            rules.duplicate_sets_forbidden = message["rules"]["duplicate_sets"].str() == "forbidden";
            log("hello: preset ", message["preset"].str(), " seat ", message["seat"].integer(), " teams ",
                dump(message["teams"]));
            send("{\"type\":\"ready\",\"name\":\"burraco-cpp-starter\"}");
        } else if (kind == "request") {
            std::string action;
            try {
                action = decide(message, rules);
            } catch (const std::exception& e) {  // never forfeit over a bug: a plain draw or discard
                log("strategy failed (", e.what(), "), falling back");
                action = fallback(message);
            }
            send("{\"type\":\"action\",\"id\":" + dump(message["id"]) + ",\"action\":" + action + "}");
        } else if (kind == "error") {
            log("referee error: ", message["code"].str(), " ", message["message"].str());
        } else if (kind == "result") {
            log("result: ranks ", dump(message["ranks"]), " points ", dump(message["points"]));
        } else if (kind == "goodbye") {
            break;
        }
        // "event" and unknown types: nothing to do, the observation carries what we need.
    }
    return 0;
}
