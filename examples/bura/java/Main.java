// Bura-family starter bot in Java 17, standard library only: every preset (bura, bura-3p, burkozel,
// burkozel-pairs, echki-6) in one file. Written from docs/protocol.md and docs/rules/bura.md alone.
//
// Build and run it locally (the platform compiles and runs a Java bot exactly like this):
//   mkdir -p classes && javac --release 17 -encoding UTF-8 -d classes Main.java
//   java -XX:+UseSerialGC -Xss8m -Xmx128m -cp classes Main
// To play it with `arena play` (which starts a folder's main.py, main.js or main), put this
// main.py beside `classes/` in a scratch folder, for local testing only:
//   import os; here = os.path.dirname(os.path.abspath(__file__))
//   os.execvp("java", ["java", "-XX:+UseSerialGC", "-Xss8m", "-Xmx128m", "-cp", os.path.join(here, "classes"), "Main"])
// then: arena play bura that-folder builtin:random --games 10 --sandbox unsafe
// Protocol: one JSON object per line on stdin/stdout; stderr is our log (see log()).
//
// Strategy: lead one cheap plain card; when answering, take the trick cheaply if points are on the
// table (plain cards first, trumps only for rich tricks), help a partner who holds the trick, otherwise
// throw the cheapest cards face down (so the taker cannot count them); claim only when the cards we
// can see in our team's piles already prove the target (31, or 61).
//
// To make it stronger, change the strategy functions in the middle of the file (chooseLead,
// chooseRespond, chooseClaim): lead several cards of a suit, count the cards already played (the
// `event` messages, which this bot ignores, tell every play), remember which face-down cards the
// opponents may have taken. Keep the JSON reader and the protocol loop at the bottom as they are.

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
import java.util.List;
import java.util.Map;
import java.util.Set;

public class Main {
    static final String NAME = "bura-java-starter";
    static final String RANKS = "ATKQJ9876"; // inside a suit, high to low

    static List<List<Integer>> helloTeams = new ArrayList<>();

    static void hello(Map<String, Object> hello) {
        helloTeams = new ArrayList<>();
        for (Object t : list(hello.get("teams"))) helloTeams.add(ints(t));
        log("hello: preset " + hello.get("preset") + " seat " + hello.get("seat") + " rules " + Json.write(hello.get("rules")));
    }

    // -----------------------------------------------------------------------------------------------
    // Cards: "AS" = ace of spades, "TD" = ten of diamonds. Points A 11, T 10, K 4, Q 3, J 2, others 0.

    static int points(String card) {
        switch (card.charAt(0)) {
            case 'A': return 11;
            case 'T': return 10;
            case 'K': return 4;
            case 'Q': return 3;
            case 'J': return 2;
            default: return 0;
        }
    }

    static int points(List<String> cards) {
        int sum = 0;
        for (String c : cards) sum += points(c);
        return sum;
    }

    /** Higher = stronger inside its suit. */
    static int strength(String card) {
        return RANKS.length() - RANKS.indexOf(card.charAt(0));
    }

    static boolean isTrump(String card, String trump) {
        return card.length() == 2 && trump.length() == 1 && card.charAt(1) == trump.charAt(0);
    }

    /** A card is beaten by a higher card of its suit or, if it is not a trump, by any trump. */
    static boolean beatsCard(String mine, String theirs, String trump) {
        if (mine.length() != 2 || theirs.length() != 2) return false;
        if (mine.charAt(1) == theirs.charAt(1)) return strength(mine) > strength(theirs);
        return isTrump(mine, trump);
    }

    /** Does our set beat theirs? Each of their cards needs its own beater: a bipartite matching
     *  (Kuhn's augmenting paths, as the rules page says), not a sort. */
    static boolean beatsSet(List<String> mine, List<String> theirs, String trump) {
        if (mine.size() != theirs.size() || mine.isEmpty()) return false;
        int[] match = new int[theirs.size()]; // index of their card -> index of our card beating it
        java.util.Arrays.fill(match, -1);
        for (int k = 0; k < mine.size(); k++) {
            if (!augment(k, new boolean[theirs.size()], match, mine, theirs, trump)) return false;
        }
        return true;
    }

    static boolean augment(int k, boolean[] seen, int[] match, List<String> mine, List<String> theirs, String trump) {
        for (int j = 0; j < theirs.size(); j++) {
            if (!seen[j] && beatsCard(mine.get(k), theirs.get(j), trump)) {
                seen[j] = true;
                if (match[j] < 0 || augment(match[j], seen, match, mine, theirs, trump)) {
                    match[j] = k;
                    return true;
                }
            }
        }
        return false;
    }

    /** How much a set "costs" to give away or to spend: its points, and trumps are worth keeping. */
    static double cost(List<String> cards, String trump) {
        double c = points(cards);
        for (String card : cards) {
            if (isTrump(card, trump)) c += 8 + strength(card);
            c += strength(card) / 100.0;
        }
        return c;
    }

    static List<String> cardsOf(Map<String, Object> action) {
        return strings(action.get("cards"));
    }

    /** A set played face down: `face_down` true, or (mixed_sets=on) a non-empty list of its face-down cards. */
    static boolean faceDown(Map<String, Object> action) {
        return truthy(action.get("face_down"));
    }

    interface Score {
        double of(Map<String, Object> action);
    }

    /** The action with the lowest score; the first one among equals. */
    static Map<String, Object> minBy(List<Map<String, Object>> actions, Score score) {
        Map<String, Object> best = null;
        double bestScore = 0;
        for (Map<String, Object> a : actions) {
            double s = score.of(a);
            if (best == null || s < bestScore) {
                best = a;
                bestScore = s;
            }
        }
        return best;
    }

    static Map<String, Object> maxBy(List<Map<String, Object>> actions, Score score) {
        return minBy(actions, a -> -score.of(a));
    }

    static List<Integer> myTeam(List<List<Integer>> teams, int seat) {
        for (List<Integer> t : teams) if (t.contains(seat)) return t;
        return List.of(seat);
    }

    // -----------------------------------------------------------------------------------------------
    // Strategy. Each function gets the request's observation and its legal actions.

    /** Lead a single cheap plain card: it risks little and makes the others show their hands.
     *  (A lead of several cards of one suit is legal too; a stronger bot would use it.) */
    static Map<String, Object> chooseLead(Map<String, Object> obs, List<Map<String, Object>> legal) {
        String trump = str(obs.get("trump"), "");
        List<Map<String, Object>> singles = new ArrayList<>();
        for (Map<String, Object> a : legal) if (cardsOf(a).size() == 1) singles.add(a);
        return minBy(singles.isEmpty() ? legal : singles, a -> cost(cardsOf(a), trump));
    }

    static Map<String, Object> chooseRespond(Map<String, Object> obs, List<Map<String, Object>> legal, List<List<Integer>> teams) {
        String trump = str(obs.get("trump"), "");
        Map<String, Object> trick = obj(obs.get("trick"));
        int seat = num(obs.get("seat"), -1);
        List<String> best = strings(trick.get("best_cards"));
        boolean partnerHolds = myTeam(teams, seat).contains(num(trick.get("best_seat"), -1));
        // Everything in the trick goes to its taker; cards played face down by others are unknown ("??").
        int onTable = 0;
        Set<Integer> played = new HashSet<>();
        played.add(seat);
        for (Object p : list(trick.get("plays"))) {
            List<String> cards = strings(get(p, "cards"));
            if (!cards.contains("??")) onTable += points(cards);
            played.add(num(get(p, "seat"), -1));
        }
        // Nobody answers after us when every seat that has not played yet holds no card.
        List<Integer> sizes = ints(obs.get("hand_sizes"));
        boolean last = true;
        for (int s = 0; s < sizes.size(); s++) if (sizes.get(s) > 0 && !played.contains(s)) last = false;

        List<Map<String, Object>> faceUp = new ArrayList<>();
        List<Map<String, Object>> faceDownSets = new ArrayList<>();
        for (Map<String, Object> a : legal) (faceDown(a) ? faceDownSets : faceUp).add(a);
        if (faceUp.isEmpty()) return minBy(legal, a -> cost(cardsOf(a), trump));

        if (partnerHolds) {
            // Our partner takes the trick: give them points, face up so the team can count them.
            if (last) return maxBy(faceUp, a -> points(cardsOf(a)) - cost(cardsOf(a), trump) / 10);
            return minBy(faceUp, a -> cost(cardsOf(a), trump));
        }

        List<Map<String, Object>> winners = new ArrayList<>();
        List<Map<String, Object>> plain = new ArrayList<>();
        for (Map<String, Object> a : faceUp) {
            if (!beatsSet(cardsOf(a), best, trump)) continue;
            winners.add(a);
            boolean anyTrump = false;
            for (String c : cardsOf(a)) anyTrump |= isTrump(c, trump);
            if (!anyTrump) plain.add(a);
        }
        if (!plain.isEmpty()) {
            // Winning without trumps: our own cards come back in the trick, so when nobody can answer
            // after us bank the richest set, otherwise the cheapest one that wins.
            if (last) return maxBy(plain, a -> points(cardsOf(a)));
            return minBy(plain, a -> cost(cardsOf(a), trump));
        }
        if (!winners.isEmpty()) {
            Map<String, Object> cheapest = minBy(winners, a -> cost(cardsOf(a), trump));
            int spent = 0;
            for (String c : cardsOf(cheapest)) if (isTrump(c, trump)) spent++;
            // Spend trumps only where it pays: 10+ points per trump used, or a trump ten/ace we bank anyway.
            if (onTable >= 10 * spent || points(cardsOf(cheapest)) >= 10) return cheapest;
        }
        // Not taking it: throw the cheapest cards, face down when allowed (the taker cannot count them).
        return minBy(faceDownSets.isEmpty() ? faceUp : faceDownSets, a -> cost(cardsOf(a), trump));
    }

    /** Points we can prove are in our team's piles: face-up cards and the face-down ones we may see. */
    static int knownTeamPoints(Map<String, Object> obs, List<Integer> team) {
        List<Object> piles = list(obs.get("piles"));
        int sum = 0;
        for (int s : team) {
            if (s < 0 || s >= piles.size()) continue;
            sum += points(strings(get(piles.get(s), "face_up"))) + points(strings(get(piles.get(s), "face_down_known")));
        }
        return sum;
    }

    static Map<String, Object> chooseClaim(Map<String, Object> obs, List<List<Integer>> teams) {
        List<Integer> team = myTeam(teams, num(obs.get("seat"), -1));
        int target = num(obs.get("claim_target"), 31);
        int known = knownTeamPoints(obs, team);
        if (known >= target) {
            log("claiming: we can show " + known + " >= " + target);
            return map("type", "claim");
        }
        return map("type", "pass"); // a false claim costs double; an unknown face-down card counts zero
    }

    static Map<String, Object> decide(Map<String, Object> request, List<Map<String, Object>> legal) {
        Map<String, Object> obs = obj(request.get("observation"));
        String decision = str(request.get("decision"), str(obs.get("decision"), ""));
        List<List<Integer>> teams = new ArrayList<>();
        for (Object t : list(obs.get("teams"))) teams.add(ints(t));
        if (teams.isEmpty()) teams = helloTeams;
        if (decision.equals("lead") && !legal.isEmpty()) return chooseLead(obs, legal);
        if (decision.equals("respond") && !legal.isEmpty()) return chooseRespond(obs, legal, teams);
        if (decision.equals("claim")) return chooseClaim(obs, teams);
        log("no plan for decision " + decision + " - playing the first legal action");
        return legal.isEmpty() ? map("type", "pass") : legal.get(0);
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
        return legal.isEmpty() ? map("type", "pass") : legal.get(0);
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
