// Burraco starter bot in Java 17, standard library only: presets `burraco` and `burraco-2p` in one
// file. Written from docs/protocol.md and docs/rules/burraco.md alone.
//
// Build and run it locally (the platform compiles and runs a Java bot exactly like this):
//   mkdir -p classes && javac --release 17 -encoding UTF-8 -d classes Main.java
//   java -XX:+UseSerialGC -Xss8m -Xmx128m -cp classes Main
// To play it with `arena play` (which starts a folder's main.py, main.js or main), put this
// main.py beside `classes/` in a scratch folder, for local testing only:
//   import os; here = os.path.dirname(os.path.abspath(__file__))
//   os.execvp("java", ["java", "-XX:+UseSerialGC", "-Xss8m", "-Xmx128m", "-cp", os.path.join(here, "classes"), "Main"])
// then: arena play burraco-2p that-folder builtin:random --games 4 --sandbox unsafe
// Protocol: one JSON object per line on stdin/stdout; stderr is our log (see log()).
//
// Burraco requests carry no legal_actions list (`null`: too many to list), so this bot builds its
// actions from the rules page and checks them itself. One turn is several requests: `draw`, then
// `play` again and again (one meld, add or discard each) until a discard ends the turn.
//
// Strategy: draw from the stock unless the discard pile melds at once with our hand; put down every
// natural set (3+ of a rank) and run (3+ in a suit); add natural cards to our team's melds; spend a
// wild (joker or two) only to make a burraco or to empty a small hand; discard a card that helps
// neither the opponents' melds nor our own hand. Every meld keeps the "last card" rule
// (canEndTurnAfter), so the bot can always end its turn with a legal discard.
//
// To make it stronger, change the strategy functions in the middle of the file (chooseDraw,
// Turn.nextMeldOrAdd, Turn.wildPlay, Turn.discard): runs that use a wild to bridge a gap, melds that
// use cards of several kinds at once, remembering what the opponents took from the pile, holding back
// melds to avoid giving the pozzetto race away. Keep canEndTurnAfter, the JSON reader and the protocol
// loop at the bottom as they are.

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

public class Main {
    static final String NAME = "burraco-java-starter";
    static final String ORDER = "A23456789TJQK"; // sequence order; the ace is 1 here and 14 after the king

    static boolean duplicateSetsForbidden = false; // rules.duplicate_sets: may a team hold two sets of one rank?

    static void hello(Map<String, Object> hello) {
        duplicateSetsForbidden = "forbidden".equals(get(hello.get("rules"), "duplicate_sets"));
        log("hello: preset " + hello.get("preset") + " seat " + hello.get("seat") + " teams " + Json.write(hello.get("teams")));
    }

    // -----------------------------------------------------------------------------------------------
    // Cards: "5H" = five of hearts, "X" = a joker. Two decks: the same card text may appear twice.

    static boolean isWild(String card) {
        return card.equals("X") || card.charAt(0) == '2'; // jokers and every two
    }

    /** Card values for scoring: joker 30, two 20, ace 15, K..8 10, 7..3 5. */
    static int value(String card) {
        if (card.equals("X")) return 30;
        char r = card.charAt(0);
        if (r == '2') return 20;
        if (r == 'A') return 15;
        return "KQJT98".indexOf(r) >= 0 ? 10 : 5;
    }

    static int rankNumber(char rank, boolean highAce) {
        return rank == 'A' && highAce ? 14 : ORDER.indexOf(rank) + 1;
    }

    static char suitOf(String card) {
        return card.length() == 2 ? card.charAt(1) : '?';
    }

    static Map<String, Integer> counter(List<String> cards) {
        Map<String, Integer> c = new HashMap<>();
        for (String x : cards) c.merge(x, 1, Integer::sum);
        return c;
    }

    /** The hand without `cards` (a multiset: two decks mean identical cards). */
    static List<String> minus(List<String> hand, List<String> cards) {
        List<String> left = new ArrayList<>(hand);
        for (String c : cards) left.remove(c); // removes one copy
        return left;
    }

    // -----------------------------------------------------------------------------------------------
    // Reading the table. A meld as the observation shows it: id, team, kind, rank, suit, cards, wild.

    static final class Meld {
        final int id;
        final int team;
        final String kind;
        final String rank;
        final String suit;
        final List<String> cards;
        final int wildIndex; // -1 without a wild
        final String wildStandsFor;
        final boolean burraco;

        Meld(Map<String, Object> m) {
            id = num(m.get("id"), -1);
            team = num(m.get("team"), -1);
            kind = str(m.get("kind"), "");
            rank = str(m.get("rank"), "");
            suit = str(m.get("suit"), "");
            cards = strings(m.get("cards"));
            Object w = m.get("wild");
            wildIndex = w instanceof Map ? num(get(w, "index"), -1) : -1;
            wildStandsFor = str(get(w, "stands_for"), "");
            burraco = Boolean.TRUE.equals(m.get("burraco")) || cards.size() >= 7;
        }

        boolean hasWild() {
            return wildIndex >= 0;
        }

        boolean isSet() {
            return kind.equals("set");
        }
    }

    /** {low, high} of a sequence meld on the table, counting the wild's place (ace low = 1, high = 14);
     *  null when no card says where it stands. */
    static int[] sequenceSpan(Meld meld) {
        for (int k = 0; k < meld.cards.size(); k++) {
            String face = (meld.hasWild() && meld.wildIndex == k) ? meld.wildStandsFor : meld.cards.get(k);
            if (face.isEmpty()) continue;
            if (face.charAt(0) != 'A') { // an ace alone does not say whether it is low or high
                int low = rankNumber(face.charAt(0), false) - k;
                return new int[] {low, low + meld.cards.size() - 1};
            }
        }
        return null;
    }

    /** Can this natural card be added to `meld` (which end of a run, or a set of its rank)? */
    static boolean fits(String card, Meld meld) {
        if (isWild(card)) return false;
        if (meld.isSet()) return meld.rank.length() == 1 && card.charAt(0) == meld.rank.charAt(0) && meld.cards.size() < 9;
        int[] span = sequenceSpan(meld);
        if (span == null || meld.suit.length() != 1 || suitOf(card) != meld.suit.charAt(0)) return false;
        if (card.charAt(0) == 'A') return span[0] == 2 || span[1] == 13;
        int n = rankNumber(card.charAt(0), false);
        return n == span[0] - 1 || n == span[1] + 1;
    }

    /** A wild may join a meld that has none yet, if there is room for it. */
    static boolean wildFits(Meld meld) {
        if (meld.hasWild()) return false;
        if (meld.isSet()) return meld.cards.size() < 9;
        int[] span = sequenceSpan(meld);
        return span != null && (span[0] > 1 || span[1] < 14);
    }

    /** New melds without wilds: sets of 3+ cards of one rank and runs of 3+ in one suit, longest first. */
    static List<List<String>> naturalMelds(List<String> hand) {
        List<String> naturals = new ArrayList<>();
        for (String c : hand) if (!isWild(c)) naturals.add(c);
        List<List<String>> found = new ArrayList<>();
        Map<Character, List<String>> byRank = new LinkedHashMap<>(); // ranks in the order the hand shows them
        for (String c : naturals) byRank.computeIfAbsent(c.charAt(0), r -> new ArrayList<>()).add(c);
        for (List<String> same : byRank.values()) {
            if (same.size() >= 3) found.add(new ArrayList<>(same.subList(0, Math.min(9, same.size()))));
        }
        for (char suit : "SHDC".toCharArray()) {
            // One card per rank (a run may not hold duplicates); the ace counts high (Q-K-A), since a
            // low ace (A-2-3) would need the two, which we keep as a wild.
            Map<Integer, String> byNumber = new HashMap<>();
            for (String c : naturals) if (suitOf(c) == suit) byNumber.put(rankNumber(c.charAt(0), true), c);
            List<String> run = new ArrayList<>();
            for (int n = 3; n <= 15; n++) {
                if (byNumber.containsKey(n)) {
                    run.add(byNumber.get(n));
                    continue;
                }
                if (run.size() >= 3) found.add(run);
                run = new ArrayList<>();
            }
        }
        found.sort((a, b) -> Integer.compare(b.size(), a.size())); // stable: equal lengths keep their order
        return found;
    }

    /** Two natural cards that a wild would turn into a meld: a pair (5S 5D + wild) or two cards of a
     *  suit one or two ranks apart (5S 6S or 5S 7S + wild). Valuable cards first. */
    static List<List<String>> nearMelds(List<String> hand) {
        TreeSet<String> distinct = new TreeSet<>((a, b) -> {
            if (suitOf(a) != suitOf(b)) return Character.compare(suitOf(a), suitOf(b));
            return Integer.compare(rankNumber(a.charAt(0), true), rankNumber(b.charAt(0), true));
        });
        for (String c : hand) if (!isWild(c)) distinct.add(c);
        List<String> naturals = new ArrayList<>(distinct);
        List<List<String>> found = new ArrayList<>();
        for (int x = 0; x < naturals.size(); x++) {
            for (int y = x + 1; y < naturals.size(); y++) {
                String a = naturals.get(x), b = naturals.get(y);
                int gap = rankNumber(b.charAt(0), true) - rankNumber(a.charAt(0), true);
                if (a.charAt(0) == b.charAt(0) || (suitOf(a) == suitOf(b) && gap > 0 && gap <= 2)) found.add(List.of(a, b));
            }
        }
        found.sort((p, q) -> Integer.compare(value(q.get(0)) + value(q.get(1)), value(p.get(0)) + value(p.get(1))));
        return found;
    }

    /** How many cards of `hand` could go down without a wild: natural melds plus cards fitting `melds`. */
    static int meldable(List<String> hand, List<Meld> melds) {
        Map<String, Integer> have = counter(hand);
        List<String> used = new ArrayList<>();
        for (List<String> cards : naturalMelds(hand)) {
            Map<String, Integer> need = counter(cards);
            boolean available = true;
            for (Map.Entry<String, Integer> e : need.entrySet()) {
                if (e.getValue() > have.getOrDefault(e.getKey(), 0)) available = false;
            }
            if (!available) continue;
            for (String c : cards) have.merge(c, -1, Integer::sum);
            used.addAll(cards);
        }
        int count = used.size();
        for (String c : minus(hand, used)) {
            for (Meld m : melds) {
                if (fits(c, m)) {
                    count++;
                    break;
                }
            }
        }
        return count;
    }

    // -----------------------------------------------------------------------------------------------
    // Strategy.

    static List<Meld> melds(Map<String, Object> obs, int team, boolean ours) {
        List<Meld> out = new ArrayList<>();
        for (Object m : list(obs.get("melds"))) {
            Meld meld = new Meld(obj(m));
            if ((meld.team == team) == ours) out.add(meld);
        }
        return out;
    }

    /** Take the discard pile when its cards meld at once with ours, else draw from the stock. */
    static Map<String, Object> chooseDraw(Map<String, Object> obs) {
        List<String> pile = strings(obs.get("discard_pile"));
        if (pile.isEmpty()) return map("type", "draw");
        List<String> hand = strings(obs.get("hand"));
        List<Meld> ours = melds(obs, num(obs.get("team"), -1), true);
        List<String> both = new ArrayList<>(hand);
        both.addAll(pile);
        int gain = meldable(both, ours) - meldable(hand, ours);
        if (gain >= 3 || (gain >= 2 && pile.size() <= 4)) return map("type", "take_pile");
        return map("type", "draw");
    }

    static final class Turn {
        final Map<String, Object> obs;
        final List<String> hand;
        final List<Meld> ours;
        final List<Meld> theirs;
        final boolean pozzettoTaken;
        final String locked;
        final boolean lastTurn;

        Turn(Map<String, Object> obs) {
            this.obs = obs;
            hand = strings(obs.get("hand"));
            int team = num(obs.get("team"), -1);
            ours = melds(obs, team, true);
            theirs = melds(obs, team, false);
            List<Object> pozzetti = list(obs.get("pozzetti"));
            pozzettoTaken = team >= 0 && team < pozzetti.size() && Boolean.TRUE.equals(get(pozzetti.get(team), "taken"));
            locked = str(obs.get("locked_card"), null);
            lastTurn = Boolean.TRUE.equals(obs.get("last_turn"));
        }

        /** With duplicate_sets=forbidden a new set of a rank our team already holds as a set is refused. */
        boolean setAllowed(List<String> cards) {
            if (!duplicateSetsForbidden) return true;
            char rank = 0;
            for (String c : cards) {
                if (isWild(c)) continue;
                if (rank != 0 && c.charAt(0) != rank) return true; // a sequence, not a set
                rank = c.charAt(0);
            }
            for (Meld m : ours) if (m.isSet() && m.rank.length() == 1 && m.rank.charAt(0) == rank) return false;
            return true;
        }

        /** The "last card" rule: after melding `used` we must still be able to end the turn. */
        boolean canEndTurnAfter(List<String> used, boolean makesBurraco) {
            List<String> left = minus(hand, used);
            if (left.size() + used.size() != hand.size()) return false; // cards we do not hold
            if (left.isEmpty()) return !pozzettoTaken && !lastTurn; // melding everything takes the pozzetto direct
            if (left.size() >= 2) return true;
            String last = left.get(0);
            if (last.equals(locked)) return false; // the card of a one-card pile taken this turn may not be discarded
            if (!pozzettoTaken || lastTurn) return true; // that discard takes the pozzetto (or just ends the hand)
            boolean hasBurraco = makesBurraco;
            for (Meld m : ours) hasBurraco |= m.burraco;
            return hasBurraco && !isWild(last); // that discard closes the hand
        }

        Map<String, Object> nextMeldOrAdd() {
            for (List<String> cards : naturalMelds(hand)) {
                if (setAllowed(cards) && canEndTurnAfter(cards, cards.size() >= 7)) return map("type", "meld", "cards", cards);
            }
            // Grow the longest melds first: seven cards make a burraco.
            List<Meld> longest = new ArrayList<>(ours);
            longest.sort((a, b) -> Integer.compare(b.cards.size(), a.cards.size()));
            for (Meld meld : longest) {
                for (String card : hand) {
                    if (fits(card, meld) && canEndTurnAfter(List.of(card), meld.cards.size() + 1 >= 7)) {
                        return map("type", "add", "meld", meld.id, "cards", List.of(card));
                    }
                }
            }
            return wildPlay(longest);
        }

        /** Wilds are precious (and cost 20 or 30 left in hand): use one to turn a 6-card meld into a
         *  burraco, to start a meld from a pair or a broken run while the hand is big, or to unload a
         *  small hand. */
        Map<String, Object> wildPlay(List<Meld> longest) {
            String wild = null; // a two before a joker
            for (String c : hand) if (isWild(c) && (wild == null || value(c) < value(wild))) wild = c;
            if (wild == null) return null;
            boolean smallHand = hand.size() <= 5, bigHand = hand.size() >= 8;
            for (Meld meld : longest) {
                boolean grows = meld.cards.size() == 6 || smallHand;
                if (wildFits(meld) && grows && canEndTurnAfter(List.of(wild), meld.cards.size() + 1 >= 7)) {
                    return map("type", "add", "meld", meld.id, "cards", List.of(wild));
                }
            }
            if (smallHand || bigHand) {
                for (List<String> pair : nearMelds(hand)) {
                    List<String> cards = new ArrayList<>(pair);
                    cards.add(wild);
                    if (setAllowed(cards) && canEndTurnAfter(cards, false)) return map("type", "meld", "cards", cards);
                }
            }
            return null;
        }

        /** Give nothing away: not a wild, not a card the opponents can add to their melds, not a card
         *  that works with our hand; among the rest, the most valuable (it would count against us). */
        Map<String, Object> discard() {
            List<String> allowed = new ArrayList<>();
            for (String c : hand) if (!c.equals(locked) || Collections.frequency(hand, c) > 1) allowed.add(c);
            if (allowed.isEmpty()) allowed = new ArrayList<>(hand);
            if (pozzettoTaken && hand.size() == 1 && !lastTurn) {
                List<String> natural = new ArrayList<>(); // a closing discard is never wild
                for (String c : allowed) if (!isWild(c)) natural.add(c);
                if (!natural.isEmpty()) allowed = natural;
            }
            List<List<String>> near = nearMelds(hand);
            String best = null;
            int[] bestKey = null;
            for (String card : allowed) {
                boolean helpsThem = false, helpsUs = false;
                for (Meld m : theirs) helpsThem |= fits(card, m);
                for (Meld m : ours) helpsUs |= fits(card, m);
                int neighbours = 0;
                for (List<String> pair : near) if (pair.contains(card)) neighbours++;
                int[] key = {isWild(card) ? 1 : 0, helpsThem ? 1 : 0, helpsUs ? 1 : 0, neighbours, -value(card)};
                if (best == null || java.util.Arrays.compare(key, bestKey) < 0) {
                    best = card;
                    bestKey = key;
                }
            }
            if (best == null) best = hand.isEmpty() ? "X" : hand.get(0);
            return map("type", "discard", "card", best);
        }
    }

    static Map<String, Object> decide(Map<String, Object> request) {
        Map<String, Object> obs = obj(request.get("observation"));
        String decision = str(request.get("decision"), str(obs.get("decision"), ""));
        if (decision.equals("draw")) return chooseDraw(obs);
        if (decision.equals("play")) {
            Turn turn = new Turn(obs);
            Map<String, Object> action = turn.nextMeldOrAdd();
            return action != null ? action : turn.discard();
        }
        log("no plan for decision " + decision);
        return map("type", "draw");
    }

    /** decide(), but a bug in the strategy costs a weak move, never the match. */
    static Map<String, Object> safeDecide(Map<String, Object> request) {
        try {
            return decide(request);
        } catch (RuntimeException | StackOverflowError e) {
            log("strategy failed (" + e + "); falling back");
            Map<String, Object> obs = obj(request.get("observation"));
            if ("draw".equals(request.get("decision"))) return map("type", "draw");
            return new Turn(obs).discard();
        }
    }

    // -----------------------------------------------------------------------------------------------
    // A small JSON reader and writer (the JDK has none). Objects become LinkedHashMap<String, Object>,
    // arrays ArrayList<Object>, strings String, numbers Long (integers) or Double, true/false Boolean,
    // null Java null. The writer takes the same kinds back.

    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json p = new Json(text);
            p.ws();
            Object v = p.value(0);
            p.ws();
            if (p.i != p.s.length()) throw p.fail("trailing characters");
            return v;
        }

        private IllegalArgumentException fail(String why) {
            return new IllegalArgumentException("bad JSON at " + i + ": " + why);
        }

        private void ws() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') i++;
                else break;
            }
        }

        private Object value(int depth) {
            if (depth > 200) throw fail("nested too deep");
            if (i >= s.length()) throw fail("unexpected end");
            char c = s.charAt(i);
            switch (c) {
                case '{': return object(depth);
                case '[': return array(depth);
                case '"': return string();
                case 't': word("true"); return Boolean.TRUE;
                case 'f': word("false"); return Boolean.FALSE;
                case 'n': word("null"); return null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) return number();
                    throw fail("unexpected character " + c);
            }
        }

        private void word(String w) {
            if (!s.startsWith(w, i)) throw fail("expected " + w);
            i += w.length();
        }

        private Map<String, Object> object(int depth) {
            Map<String, Object> m = new LinkedHashMap<>();
            i++; // {
            ws();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return m;
            }
            while (true) {
                ws();
                if (i >= s.length() || s.charAt(i) != '"') throw fail("expected a key");
                String key = string();
                ws();
                if (i >= s.length() || s.charAt(i) != ':') throw fail("expected :");
                i++;
                ws();
                m.put(key, value(depth + 1));
                ws();
                if (i >= s.length()) throw fail("unfinished object");
                char c = s.charAt(i++);
                if (c == '}') return m;
                if (c != ',') throw fail("expected , or }");
            }
        }

        private List<Object> array(int depth) {
            List<Object> a = new ArrayList<>();
            i++; // [
            ws();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return a;
            }
            while (true) {
                ws();
                a.add(value(depth + 1));
                ws();
                if (i >= s.length()) throw fail("unfinished array");
                char c = s.charAt(i++);
                if (c == ']') return a;
                if (c != ',') throw fail("expected , or ]");
            }
        }

        private String string() {
            i++; // opening quote
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw fail("unfinished string");
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) throw fail("unfinished escape");
                char e = s.charAt(i++);
                switch (e) {
                    case '"': b.append('"'); break;
                    case '\\': b.append('\\'); break;
                    case '/': b.append('/'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length()) throw fail("short \\u escape");
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw fail("bad \\u escape");
                        }
                        i += 4;
                        break;
                    default: throw fail("bad escape \\" + e);
                }
            }
        }

        private Object number() {
            int start = i;
            boolean integer = true;
            if (s.charAt(i) == '-') i++;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c >= '0' && c <= '9') i++;
                else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    integer = false;
                    i++;
                } else break;
            }
            String t = s.substring(start, i);
            try {
                if (integer) {
                    try {
                        return Long.parseLong(t);
                    } catch (NumberFormatException tooBig) {
                        return Double.parseDouble(t);
                    }
                }
                return Double.parseDouble(t);
            } catch (NumberFormatException ex) {
                throw fail("bad number " + t);
            }
        }

        static String write(Object v) {
            StringBuilder b = new StringBuilder();
            write(b, v);
            return b.toString();
        }

        private static void write(StringBuilder b, Object v) {
            if (v == null) {
                b.append("null");
            } else if (v instanceof String) {
                quote(b, (String) v);
            } else if (v instanceof Boolean) {
                b.append(((Boolean) v) ? "true" : "false");
            } else if (v instanceof Double || v instanceof Float) {
                double d = ((Number) v).doubleValue();
                if (Double.isNaN(d) || Double.isInfinite(d)) b.append("null"); // JSON has no NaN
                else if (d == Math.rint(d) && Math.abs(d) < 1e15) b.append((long) d);
                else b.append(d);
            } else if (v instanceof Number) {
                b.append(((Number) v).longValue());
            } else if (v instanceof Map) {
                b.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (!first) b.append(',');
                    first = false;
                    quote(b, String.valueOf(e.getKey()));
                    b.append(':');
                    write(b, e.getValue());
                }
                b.append('}');
            } else if (v instanceof Collection) {
                b.append('[');
                boolean first = true;
                for (Object x : (Collection<?>) v) {
                    if (!first) b.append(',');
                    first = false;
                    write(b, x);
                }
                b.append(']');
            } else {
                quote(b, v.toString());
            }
        }

        private static void quote(StringBuilder b, String t) {
            b.append('"');
            for (int k = 0; k < t.length(); k++) {
                char c = t.charAt(k);
                switch (c) {
                    case '"': b.append("\\\""); break;
                    case '\\': b.append("\\\\"); break;
                    case '\n': b.append("\\n"); break;
                    case '\r': b.append("\\r"); break;
                    case '\t': b.append("\\t"); break;
                    default:
                        if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                        else b.append(c);
                }
            }
            b.append('"');
        }
    }

    // Typed access to parsed JSON: each returns a default when the field is missing or of another kind.

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object v) {
        return v instanceof Map ? (Map<String, Object>) v : new LinkedHashMap<>();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object v) {
        return v instanceof List ? (List<Object>) v : new ArrayList<>();
    }

    static Object get(Object o, String key) {
        return o instanceof Map ? ((Map<?, ?>) o).get(key) : null;
    }

    static String str(Object v, String dflt) {
        return v instanceof String ? (String) v : dflt;
    }

    static int num(Object v, int dflt) {
        return v instanceof Number ? ((Number) v).intValue() : dflt;
    }

    static boolean truthy(Object v) {
        if (v instanceof Boolean) return (Boolean) v;
        if (v instanceof List) return !((List<?>) v).isEmpty();
        return v != null;
    }

    /** A JSON list of strings (cards) as a Java list; anything that is not a string is skipped. */
    static List<String> strings(Object v) {
        List<String> out = new ArrayList<>();
        for (Object x : list(v)) if (x instanceof String) out.add((String) x);
        return out;
    }

    static List<Integer> ints(Object v) {
        List<Integer> out = new ArrayList<>();
        for (Object x : list(v)) if (x instanceof Number) out.add(((Number) x).intValue());
        return out;
    }

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int k = 0; k + 1 < kv.length; k += 2) m.put((String) kv[k], kv[k + 1]);
        return m;
    }
    // -----------------------------------------------------------------------------------------------
    // The protocol loop: read a line, answer requests, ignore everything we do not know.

    static PrintStream out;
    static PrintStream err;

    static void log(String text) {
        err.println(text);
        err.flush();
    }

    static void send(Map<String, Object> message) {
        out.print(Json.write(message) + "\n");
        out.flush(); // an unflushed answer never arrives
    }

    public static void main(String[] args) throws IOException {
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Object message;
            try {
                message = Json.parse(line);
            } catch (IllegalArgumentException e) {
                log("cannot read a line from the referee: " + e.getMessage());
                continue;
            }
            String kind = str(get(message, "type"), "");
            switch (kind) {
                case "hello":
                    hello(obj(message));
                    send(map("type", "ready", "name", NAME));
                    break;
                case "request":
                    send(map("type", "action", "id", get(message, "id"), "action", safeDecide(obj(message))));
                    break;
                case "error":
                    log("referee error: " + get(message, "code") + " " + get(message, "message"));
                    break;
                case "result":
                    log("result: ranks " + Json.write(get(message, "ranks")) + " points " + Json.write(get(message, "points")));
                    break;
                case "goodbye":
                    return;
                default:
                    // "event" and unknown types: nothing to do, the observation carries what we need.
                    break;
            }
        }
    }
}
