// Kozel starter bot in Java 17, standard library only: presets `kozel` and `kozel-3p` in one file.
// Written from docs/protocol.md and docs/rules/kozel.md alone.
//
// Build and run it locally (the platform compiles and runs a Java bot exactly like this):
//   mkdir -p classes && javac --release 17 -encoding UTF-8 -d classes Main.java
//   java -XX:+UseSerialGC -Xss8m -Xmx128m -cp classes Main
// To play it with `arena play` (which starts a folder's main.py, main.js or main), put this
// main.py beside `classes/` in a scratch folder, for local testing only:
//   import os; here = os.path.dirname(os.path.abspath(__file__))
//   os.execvp("java", ["java", "-XX:+UseSerialGC", "-Xss8m", "-Xmx128m", "-cp", os.path.join(here, "classes"), "Main"])
// then: arena play kozel that-folder builtin:random --games 10 --sandbox unsafe
//       arena play kozel-3p that-folder builtin:random builtin:random --games 10 --sandbox unsafe
// Protocol: one JSON object per line on stdin/stdout; stderr is our log (see log()).
//
// Strategy in one breath: follow suit (the referee's legal_actions already enforce it), give points to
// a partner who is sure to hold the trick, take tricks that carry points with the cheapest card that
// wins, and otherwise throw the cheapest card. With 3 players: take the widow with five trumps or more
// (then discard plain tens and kings), and in a misère (the widow declined) duck: points taken are
// penalties.
//
// To make it stronger, change the strategy functions in the middle of the file (chooseLead,
// chooseFollow, chooseDiscard, takesWidow, chooseMisere): infer voids from who did not follow suit
// (every trick is in observation.tricks), keep count of the trumps still out, lead towards a partner.
// Keep the JSON reader and the protocol loop at the bottom as they are.

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class Main {
    static final String NAME = "kozel-java-starter";
    static final String PLAIN_ORDER = "ATK9876"; // plain-suit ranks, high to low (a deck has the sevens or the sixes)

    static Cards cards = new Cards("no-sevens");

    static void hello(Map<String, Object> hello) {
        cards = new Cards(str(get(hello.get("rules"), "deck"), "no-sevens"));
        log("hello: preset " + hello.get("preset") + " seat " + hello.get("seat") + " rules " + Json.write(hello.get("rules")));
    }

    // -----------------------------------------------------------------------------------------------
    // Cards. A card is rank + suit text, e.g. "TH" = ten of hearts, "6C" = six of clubs.

    static int points(String card) {
        switch (card.charAt(0)) {
            case 'A': return 11;
            case 'T': return 10;
            case 'K': return 4;
            case 'Q': return 3;
            case 'J': return 2;
            default: return 0; // 9 8 7 6
        }
    }

    /** Knows which cards are trumps and how cards compare, for the deck in force (from `hello`). */
    static final class Cards {
        final List<String> trumps = new ArrayList<>(); // the permanent trumps, high to low
        final Set<String> deck = new LinkedHashSet<>();

        Cards(String deckName) {
            boolean noSixes = deckName.equals("no-sixes");
            String low = noSixes ? "7" : "6";
            if (!noSixes) trumps.add("6C"); // with no-sevens the six of clubs is the highest trump
            for (String t : new String[] {"QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"}) trumps.add(t);
            for (char r : ("ATK98" + low).toCharArray()) trumps.add(r + "D");
            deck.addAll(trumps);
            String clubs = noSixes ? "ATK987" : "ATK98";
            for (char r : clubs.toCharArray()) deck.add(r + "C");
            for (char r : ("ATK98" + low).toCharArray()) {
                deck.add(r + "S");
                deck.add(r + "H");
            }
        }

        boolean isTrump(String card) {
            return trumps.contains(card);
        }

        /** The suit a card follows: "trump" for every trump, else its own letter. */
        String suit(String card) {
            return isTrump(card) ? "trump" : card.substring(1);
        }

        /** Bigger = stronger. Any trump beats any plain card; inside a plain suit, the rank order decides. */
        int strength(String card) {
            if (isTrump(card)) return 100 - trumps.indexOf(card);
            return 10 - PLAIN_ORDER.indexOf(card.charAt(0));
        }

        /** Does `card` beat the trick's current best card `best`, when suit `led` was led? */
        boolean beats(String card, String best, String led) {
            if (isTrump(card) != isTrump(best)) return isTrump(card);
            if (!isTrump(card) && !suit(card).equals(led)) return false; // an off-suit plain card never wins
            return strength(card) > strength(best);
        }
    }

    interface Key {
        double[] of(String card);
    }

    /** The card with the smallest key (compared element by element); the first one among equals. */
    static String minBy(List<String> options, Key key) {
        String best = null;
        double[] bestKey = null;
        for (String c : options) {
            double[] k = key.of(c);
            if (best == null || compare(k, bestKey) < 0) {
                best = c;
                bestKey = k;
            }
        }
        return best;
    }

    static String maxBy(List<String> options, Key key) {
        String best = null;
        double[] bestKey = null;
        for (String c : options) {
            double[] k = key.of(c);
            if (best == null || compare(k, bestKey) > 0) {
                best = c;
                bestKey = k;
            }
        }
        return best;
    }

    static int compare(double[] a, double[] b) {
        for (int k = 0; k < Math.min(a.length, b.length); k++) {
            if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
        }
        return Integer.compare(a.length, b.length);
    }

    static double bit(boolean b) {
        return b ? 1 : 0;
    }

    // -----------------------------------------------------------------------------------------------
    // Strategy. Everything we need is in the request's observation, so this bot ignores events.

    /** Cards that some other seat may still hold: the deck minus our hand, what was played, our own discard. */
    static Set<String> unseenCards(Map<String, Object> obs) {
        Set<String> seen = new HashSet<>(strings(obs.get("hand")));
        seen.addAll(strings(obs.get("trick")));
        seen.addAll(strings(obs.get("discard")));
        for (Object t : list(obs.get("tricks"))) seen.addAll(strings(get(t, "cards")));
        Set<String> unseen = new LinkedHashSet<>(cards.deck);
        unseen.removeAll(seen);
        return unseen;
    }

    /** True if no card still out can beat `card`. Conservative: any trump out beats a plain card. */
    static boolean sureWinner(String card, String led, Set<String> unseen) {
        for (String other : unseen) if (cards.beats(other, card, led)) return false;
        return true;
    }

    static String chooseLead(Map<String, Object> obs, List<String> hand) {
        Set<String> unseen = unseenCards(obs);
        List<String> trumps = new ArrayList<>();
        List<String> plain = new ArrayList<>();
        for (String c : hand) (cards.isTrump(c) ? trumps : plain).add(c);
        // With plenty of trumps, pull the opponents' trumps with a trump nobody can beat.
        if (trumps.size() >= 3) {
            String top = maxBy(trumps, c -> new double[] {cards.strength(c)});
            if (sureWinner(top, "trump", unseen)) return top;
        }
        // A plain card that wins for sure (e.g. an ace once nothing out can trump it) collects points.
        List<String> winners = new ArrayList<>();
        for (String c : plain) if (sureWinner(c, cards.suit(c), unseen)) winners.add(c);
        if (!winners.isEmpty()) return maxBy(winners, c -> new double[] {points(c)});
        // Otherwise lead something cheap and let the others spend their cards.
        return minBy(plain.isEmpty() ? trumps : plain, c -> new double[] {points(c), cards.strength(c)});
    }

    static String chooseFollow(Map<String, Object> obs, List<String> hand) {
        int seat = num(obs.get("seat"), -1);
        int leader = num(obs.get("leader"), 0);
        List<String> trick = strings(obs.get("trick"));
        String led = str(obs.get("led"), "");
        List<Object> sides = list(obs.get("sides"));
        int mySideIndex = num(obs.get("my_side"), -1);
        List<Integer> mySide = mySideIndex >= 0 && mySideIndex < sides.size() ? ints(sides.get(mySideIndex)) : List.of(seat);
        int players = num(obs.get("players"), Math.max(1, ints(obs.get("hand_sizes")).size()));

        int bestI = 0;
        for (int k = 1; k < trick.size(); k++) if (cards.beats(trick.get(k), trick.get(bestI), led)) bestI = k;
        String best = trick.get(bestI);
        int bestSeat = (leader + bestI) % players;
        boolean last = trick.size() == players - 1;
        int onTable = 0;
        for (String c : trick) onTable += points(c);
        Set<String> unseen = unseenCards(obs);

        // A partner holds the trick for sure: give them our richest card (plain first: trumps are power).
        if (mySide.contains(bestSeat) && bestSeat != seat && (last || sureWinner(best, led, unseen))) {
            return maxBy(hand, c -> new double[] {points(c) - (cards.isTrump(c) ? 5 : 0), -cards.strength(c)});
        }

        List<String> winning = new ArrayList<>();
        for (String c : hand) if (cards.beats(c, best, led)) winning.add(c);
        if (!mySide.contains(bestSeat) && !winning.isEmpty()) {
            // A plain card of the led suit that wins brings its own points home: play the richest such card.
            List<String> plain = new ArrayList<>();
            for (String c : winning) if (!cards.isTrump(c)) plain.add(c);
            if (!plain.isEmpty()) {
                String richest = maxBy(plain, c -> new double[] {points(c)});
                if (last || sureWinner(richest, led, unseen)) return richest;
            }
            // Otherwise win with the lowest trump, if the trick is worth it. Trumps are our power, so
            // queens and the six of clubs are kept for rich tricks and jacks for tricks worth something.
            String trump = minBy(winning, c -> new double[] {cards.strength(c)});
            char r = trump.charAt(0);
            int need = (r == 'Q' || r == '6') ? 10 : r == 'J' ? 4 : 1;
            if (onTable >= need) return trump;
        }
        // Lose as few points as possible; among equal points keep the stronger cards for later.
        return minBy(hand, c -> new double[] {points(c), bit(cards.isTrump(c)), cards.strength(c)});
    }

    /** The soloist's discard counts for the soloist for sure: bury plain tens and kings we could lose. */
    static List<String> chooseDiscard(List<String> hand) {
        List<String> sorted = new ArrayList<>(hand);
        sorted.sort((a, b) -> Integer.compare(keepValue(a, hand), keepValue(b, hand))); // stable
        return sorted.subList(0, Math.min(2, sorted.size()));
    }

    static int keepValue(String card, List<String> hand) {
        if (cards.isTrump(card) || card.charAt(0) == 'A') return 100 + cards.strength(card); // never throw away power
        boolean aceGuard = card.charAt(0) == 'T' && hand.contains("A" + card.charAt(1)); // a ten behind its own ace is safe
        return (aceGuard ? 50 : 0) - points(card);
    }

    /** Playing alone against two needs power: five trumps or more. */
    static boolean takesWidow(List<String> hand) {
        int n = 0;
        for (String c : hand) if (cards.isTrump(c)) n++;
        return n >= 5;
    }

    /** Everyone for themselves, penalised for points taken: lead the weakest card; when following, play
     *  the richest card that still loses the trick (let someone else take our points), else the weakest. */
    static String chooseMisere(Map<String, Object> obs, List<String> hand) {
        List<String> trick = strings(obs.get("trick"));
        if (trick.isEmpty()) return minBy(hand, c -> new double[] {cards.strength(c), points(c)});
        String led = str(obs.get("led"), "");
        String best = trick.get(0);
        for (String c : trick.subList(1, trick.size())) if (cards.beats(c, best, led)) best = c;
        List<String> losing = new ArrayList<>();
        for (String c : hand) if (!cards.beats(c, best, led)) losing.add(c);
        if (!losing.isEmpty()) return maxBy(losing, c -> new double[] {points(c), cards.strength(c)});
        return minBy(hand, c -> new double[] {cards.strength(c)});
    }

    static Map<String, Object> play(String card) {
        return map("type", "play", "card", card);
    }

    static Map<String, Object> decide(Map<String, Object> request, List<Map<String, Object>> legal) {
        Map<String, Object> obs = obj(request.get("observation"));
        String decision = str(request.get("decision"), str(obs.get("decision"), ""));
        List<String> hand = new ArrayList<>(); // the cards we may play now
        for (Map<String, Object> a : legal) {
            if ("play".equals(a.get("type")) && a.get("card") instanceof String) hand.add((String) a.get("card"));
        }
        if (decision.equals("widow")) return map("type", "widow", "take", takesWidow(strings(obs.get("hand"))));
        if ((decision.equals("lead") || decision.equals("follow")) && !hand.isEmpty() && "misere".equals(obs.get("contract"))) {
            return play(chooseMisere(obs, hand));
        }
        if (decision.equals("discard")) {
            // The widow joins the hand; add it in case the observation lists it apart.
            Set<String> twelve = new LinkedHashSet<>(strings(obs.get("hand")));
            twelve.addAll(strings(obs.get("widow")));
            Set<String> pick = new HashSet<>(chooseDiscard(new ArrayList<>(twelve)));
            for (Map<String, Object> a : legal) {
                if (new HashSet<>(strings(a.get("cards"))).equals(pick)) return a;
            }
        } else if (decision.equals("lead") && !hand.isEmpty()) {
            return play(chooseLead(obs, hand));
        } else if (decision.equals("follow") && !hand.isEmpty()) {
            if (strings(obs.get("trick")).isEmpty()) return play(chooseLead(obs, hand));
            return play(chooseFollow(obs, hand));
        }
        log("no plan for decision " + decision + " - playing the first legal action");
        return legal.isEmpty() ? null : legal.get(0);
    }

    /** decide(), but a bug in the strategy costs a weak move, never the match. */
    static Map<String, Object> safeDecide(Map<String, Object> request) {
        List<Map<String, Object>> legal = new ArrayList<>();
        for (Object a : list(request.get("legal_actions"))) if (a instanceof Map) legal.add(obj(a));
        try {
            Map<String, Object> action = decide(request, legal);
            if (action != null) return action;
        } catch (RuntimeException | StackOverflowError e) {
            log("strategy failed (" + e + "); playing the first legal action");
        }
        return legal.isEmpty() ? map("type", "play", "card", "??") : legal.get(0);
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
