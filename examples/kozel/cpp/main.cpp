// Kozel starter bot in C++ (presets `kozel` and `kozel-3p`), written from docs/protocol.md and
// docs/rules/kozel.md alone; C++20, standard library only.
//
// Build and run it locally (the platform compiles it the same way, without -Wall -Wextra):
//   mkdir -p /tmp/kit-kozel-cpp
//   g++ -std=c++20 -O2 -pipe -Wall -Wextra -o /tmp/kit-kozel-cpp/main examples/kozel/cpp/main.cpp
//   arena play kozel /tmp/kit-kozel-cpp builtin:random --games 10 --duplicate
//   arena play kozel-3p /tmp/kit-kozel-cpp builtin:random builtin:random --games 10 --duplicate
// The folder holding the binary `main` is the bot. To upload, give the platform this folder
// (main.cpp): it compiles every .cpp file with `g++ -std=c++20 -O2 -pipe -o main <files>`.
// Protocol: one JSON object per line on stdin/stdout; stderr is our log (the referee keeps its last
// 20 lines).
//
// Strategy in one breath: follow suit (the referee's legal_actions already enforce it), give points to
// a partner who is sure to hold the trick, take tricks that carry points with the cheapest card that
// wins, and otherwise throw the cheapest card. With 3 players: take the widow with five trumps or more
// (then discard plain tens and kings), and in a misère (the widow declined) duck: points taken are
// penalties.
//
// Making it stronger: the strategy section (choose_lead, choose_follow, choose_discard, takes_widow,
// choose_misere). Ideas: remember which seats showed out of a suit (the observation's `tricks` say
// who played what); count the trumps still out before leading one; judge the widow by the hand's
// points as well as its trumps; as a defender in a solo, give points to the partner sitting after the
// soloist. Every request lists `legal_actions`, so an answer picked from that list is always legal.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
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
// Cards. A card is rank + suit text, e.g. "TH" = ten of hearts, "6C" = six of clubs.

const std::string PLAIN_ORDER = "ATK9876";  // plain-suit ranks, high to low (a deck has the sevens or the sixes)

int points(const std::string& card) {
    if (card.empty()) return 0;
    switch (card[0]) {
        case 'A': return 11;
        case 'T': return 10;
        case 'K': return 4;
        case 'Q': return 3;
        case 'J': return 2;
        default: return 0;  // 9 8 7 6 are worth nothing
    }
}

// Knows which cards are trumps and how cards compare, for the deck in force (from `hello.rules.deck`).
struct Cards {
    std::vector<std::string> trumps;  // high to low
    std::set<std::string> deck;

    explicit Cards(const std::string& deck_name) {
        bool no_sixes = deck_name == "no-sixes";
        std::string low = no_sixes ? "7" : "6";
        // With the no-sixes deck 6C is gone and the diamonds end in 7D.
        if (!no_sixes) trumps.push_back("6C");
        for (const char* t : {"QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"}) trumps.push_back(t);
        for (char r : "ATK98" + low) trumps.push_back(std::string{r, 'D'});
        deck.insert(trumps.begin(), trumps.end());
        std::string clubs = no_sixes ? "ATK987" : "ATK98";
        for (char r : clubs) deck.insert(std::string{r, 'C'});
        for (char s : {'S', 'H'})
            for (char r : "ATK98" + low) deck.insert(std::string{r, s});
    }

    int trump_index(const std::string& card) const {
        auto it = std::find(trumps.begin(), trumps.end(), card);
        return it == trumps.end() ? -1 : static_cast<int>(it - trumps.begin());
    }
    bool is_trump(const std::string& card) const { return trump_index(card) >= 0; }

    std::string suit(const std::string& card) const {  // the suit a card follows: "trump" or its letter
        if (is_trump(card)) return "trump";
        return card.size() >= 2 ? std::string(1, card[1]) : "?";
    }

    int strength(const std::string& card) const {
        // Bigger = stronger. Any trump beats any plain card; inside a plain suit, the rank order decides.
        int t = trump_index(card);
        if (t >= 0) return 100 - t;
        std::size_t i = card.empty() ? std::string::npos : PLAIN_ORDER.find(card[0]);
        return i == std::string::npos ? 0 : 10 - static_cast<int>(i);
    }

    bool beats(const std::string& card, const std::string& best, const std::string& led) const {
        // Does `card` beat the trick's current best card `best`, when suit `led` was led?
        if (is_trump(card) != is_trump(best)) return is_trump(card);
        if (!is_trump(card) && suit(card) != led) return false;  // an off-suit plain card never wins
        return strength(card) > strength(best);
    }
};

// Pick the card with the smallest (largest) key; keys are tuples compared in order; first one wins ties.
template <typename Key>
std::string min_by(const std::vector<std::string>& cards, Key key) {
    std::string best;
    bool have = false;
    decltype(key(std::string())) best_key{};
    for (const auto& c : cards) {
        auto k = key(c);
        if (!have || k < best_key) best = c, best_key = k, have = true;
    }
    return best;
}

template <typename Key>
std::string max_by(const std::vector<std::string>& cards, Key key) {
    std::string best;
    bool have = false;
    decltype(key(std::string())) best_key{};
    for (const auto& c : cards) {
        auto k = key(c);
        if (!have || best_key < k) best = c, best_key = k, have = true;
    }
    return best;
}

// ---------------------------------------------------------------------------------------------------
// Strategy. Everything we need is in the request's observation, so this bot ignores events.

std::set<std::string> unseen_cards(const Cards& cards, const Json& obs) {
    // Cards some other seat may still hold: the deck minus our hand, what was played, our own discard.
    std::set<std::string> unseen = cards.deck;
    for (const auto& c : obs["hand"].strings()) unseen.erase(c);
    for (const auto& c : obs["trick"].strings()) unseen.erase(c);
    for (const auto& c : obs["discard"].strings()) unseen.erase(c);
    for (const auto& trick : obs["tricks"].items)
        for (const auto& c : trick["cards"].strings()) unseen.erase(c);
    return unseen;
}

bool sure_winner(const Cards& cards, const std::string& card, const std::string& led,
                 const std::set<std::string>& unseen) {
    // True if no card still out can beat `card`. Conservative: any trump out beats a plain card.
    for (const auto& other : unseen)
        if (cards.beats(other, card, led)) return false;
    return true;
}

std::string choose_lead(const Cards& cards, const Json& obs, const std::vector<std::string>& hand) {
    auto unseen = unseen_cards(cards, obs);
    std::vector<std::string> trumps, plain;
    for (const auto& c : hand) (cards.is_trump(c) ? trumps : plain).push_back(c);
    auto strength = [&](const std::string& c) { return cards.strength(c); };
    auto cheap = [&](const std::string& c) { return std::make_tuple(points(c), cards.strength(c)); };
    // With plenty of trumps, pull the opponents' trumps with a trump nobody can beat.
    if (trumps.size() >= 3) {
        std::string top = max_by(trumps, strength);
        if (sure_winner(cards, top, "trump", unseen)) return top;
    }
    // A plain card that wins for sure (e.g. an ace once nothing out can trump it) collects points.
    std::vector<std::string> winners;
    for (const auto& c : plain)
        if (sure_winner(cards, c, cards.suit(c), unseen)) winners.push_back(c);
    if (!winners.empty()) return max_by(winners, [](const std::string& c) { return points(c); });
    // Otherwise lead something cheap and let the others spend their cards.
    return plain.empty() ? min_by(trumps, cheap) : min_by(plain, cheap);
}

std::string choose_follow(const Cards& cards, const Json& obs, const std::vector<std::string>& hand) {
    int players = static_cast<int>(obs["players"].integer(4));
    if (players <= 0) players = 4;
    int seat = static_cast<int>(obs["seat"].integer());
    int leader = static_cast<int>(obs["leader"].integer());
    std::vector<std::string> trick = obs["trick"].strings();
    std::string led = obs["led"].str();
    std::set<int> my_side;
    const Json& side = obs["sides"][static_cast<std::size_t>(obs["my_side"].integer(0))];
    for (const auto& s : side.items) my_side.insert(static_cast<int>(s.integer()));
    if (my_side.empty()) my_side.insert(seat);

    std::size_t best_i = 0;
    for (std::size_t i = 0; i < trick.size(); ++i)
        if (cards.beats(trick[i], trick[best_i], led)) best_i = i;
    std::string best = trick.empty() ? std::string() : trick[best_i];
    int best_seat = (leader + static_cast<int>(best_i)) % players;
    bool last = static_cast<int>(trick.size()) == players - 1;
    int on_table = 0;
    for (const auto& c : trick) on_table += points(c);
    auto unseen = unseen_cards(cards, obs);

    // A partner holds the trick for sure: give them our richest card (plain first: trumps are power).
    if (my_side.count(best_seat) && best_seat != seat && (last || sure_winner(cards, best, led, unseen)))
        return max_by(hand, [&](const std::string& c) {
            return std::make_tuple(points(c) - (cards.is_trump(c) ? 5 : 0), -cards.strength(c));
        });

    std::vector<std::string> winning, plain;
    for (const auto& c : hand)
        if (cards.beats(c, best, led)) {
            winning.push_back(c);
            if (!cards.is_trump(c)) plain.push_back(c);
        }
    if (!my_side.count(best_seat) && !winning.empty()) {
        // A plain card of the led suit that wins brings its own points home: play the richest such card.
        if (!plain.empty()) {
            std::string richest = max_by(plain, [](const std::string& c) { return points(c); });
            if (last || sure_winner(cards, richest, led, unseen)) return richest;
        }
        // Otherwise win with the lowest trump, if the trick is worth it. Trumps are our power, so
        // queens and the six of clubs are kept for rich tricks and jacks for tricks worth something.
        std::string trump = min_by(winning, [&](const std::string& c) { return cards.strength(c); });
        int need = (trump[0] == 'Q' || trump[0] == '6') ? 10 : trump[0] == 'J' ? 4 : 1;
        if (on_table >= need) return trump;
    }
    // Lose as few points as possible; among equal points keep the stronger cards for later.
    return min_by(hand, [&](const std::string& c) {
        return std::make_tuple(points(c), cards.is_trump(c) ? 1 : 0, cards.strength(c));
    });
}

std::vector<std::string> choose_discard(const Cards& cards, const std::vector<std::string>& hand) {
    // The soloist's discard counts for the soloist for sure: bury plain tens and kings we could lose.
    auto keep_value = [&](const std::string& card) {
        if (cards.is_trump(card) || card[0] == 'A') return 100 + cards.strength(card);  // never throw away power
        bool ace_guard = card[0] == 'T' && std::find(hand.begin(), hand.end(), std::string{'A', card[1]}) != hand.end();
        return (ace_guard ? 50 : 0) - points(card);  // a ten behind its own ace is safe
    };
    std::vector<std::string> sorted = hand;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const std::string& a, const std::string& b) { return keep_value(a) < keep_value(b); });
    sorted.resize(std::min<std::size_t>(2, sorted.size()));
    return sorted;
}

bool takes_widow(const Cards& cards, const std::vector<std::string>& hand) {
    // Playing alone against two needs power: five trumps or more.
    return std::count_if(hand.begin(), hand.end(), [&](const std::string& c) { return cards.is_trump(c); }) >= 5;
}

std::string choose_misere(const Cards& cards, const Json& obs, const std::vector<std::string>& hand) {
    // Everyone for themselves, penalised for points taken: lead the weakest card; when following, play
    // the richest card that still loses the trick (let someone else take our points), else the weakest.
    std::vector<std::string> trick = obs["trick"].strings();
    auto weakest = [&](const std::string& c) { return std::make_tuple(cards.strength(c), points(c)); };
    if (trick.empty()) return min_by(hand, weakest);
    std::string led = obs["led"].str(), best = trick[0];
    for (std::size_t i = 1; i < trick.size(); ++i)
        if (cards.beats(trick[i], best, led)) best = trick[i];
    std::vector<std::string> losing;
    for (const auto& c : hand)
        if (!cards.beats(c, best, led)) losing.push_back(c);
    if (!losing.empty())
        return max_by(losing, [&](const std::string& c) { return std::make_tuple(points(c), cards.strength(c)); });
    return min_by(hand, [&](const std::string& c) { return cards.strength(c); });
}

std::string play(const std::string& card) { return "{\"type\":\"play\",\"card\":" + quote(card) + "}"; }

std::string decide(const Json& request, const Cards& cards) {
    const Json& obs = request["observation"];
    const Json& legal = request["legal_actions"];
    std::vector<std::string> hand;  // the cards we may play now
    for (const auto& a : legal.items)
        if (a["type"].str() == "play" && !a["card"].str().empty()) hand.push_back(a["card"].str());
    std::string decision = request["decision"].str(obs["decision"].str());

    if (decision == "widow") {
        bool take = takes_widow(cards, obs["hand"].strings());
        log("widow: ", take ? "taking it" : "declining it (misere)");
        return std::string("{\"type\":\"widow\",\"take\":") + (take ? "true" : "false") + "}";
    }
    if ((decision == "lead" || decision == "follow") && !hand.empty() && obs["contract"].str() == "misere")
        return play(choose_misere(cards, obs, hand));
    if (decision == "discard") {
        // The widow joins the hand; add it in case the observation lists it apart.
        std::vector<std::string> twelve = obs["hand"].strings();
        for (const auto& c : obs["widow"].strings())
            if (std::find(twelve.begin(), twelve.end(), c) == twelve.end()) twelve.push_back(c);
        std::vector<std::string> pick = choose_discard(cards, twelve);
        std::sort(pick.begin(), pick.end());
        for (const auto& a : legal.items) {
            std::vector<std::string> these = a["cards"].strings();
            std::sort(these.begin(), these.end());
            if (these == pick) return dump(a);
        }
    } else if (decision == "lead" && !hand.empty()) {
        return play(choose_lead(cards, obs, hand));
    } else if (decision == "follow" && !hand.empty()) {
        return play(choose_follow(cards, obs, hand));
    }
    log("no plan for decision ", decision, " - playing the first legal action");
    return legal[0].is_object() ? dump(legal[0]) : "{\"type\":\"play\",\"card\":\"??\"}";
}

// ---------------------------------------------------------------------------------------------------
// The protocol loop: read a line, answer requests, ignore everything we do not know.

void send(const std::string& line) {
    std::cout << line << '\n' << std::flush;  // an unflushed answer never arrives
}

int main() {
    std::ios::sync_with_stdio(false);
    Cards cards("no-sevens");
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
            cards = Cards(message["rules"]["deck"].str("no-sevens"));
            log("hello: preset ", message["preset"].str(), " seat ", message["seat"].integer(), " rules ",
                dump(message["rules"]));
            send("{\"type\":\"ready\",\"name\":\"kozel-cpp-starter\"}");
        } else if (kind == "request") {
            std::string action;
            try {
                action = decide(message, cards);
            } catch (const std::exception& e) {  // never forfeit over a bug: play the first legal action
                log("strategy failed (", e.what(), "), playing the first legal action");
                const Json& first = message["legal_actions"][0];
                action = first.is_object() ? dump(first) : "{\"type\":\"play\",\"card\":\"??\"}";
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
