package moonshine

import (
	"strings"
	"testing"
)

func TestSpokenSaysWhatIsWritten(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Mr. John Dashwood", "mister john dashwood"},
		{"both debits of $87.", "both debits of eighty seven dollars"},
		{"$1,250.50 due", "one thousand two hundred fifty dollars fifty cents due"},
		{"42 Elm Street", "forty two elm street"},
		{"at 3:30, or 10:00", "at three thirty or ten"},
		{"the 1st and the 24th", "the first and the twenty fourth"},
		{"in 1998, 2019 and 2000", "in nineteen ninety eight two thousand nineteen and two thousand"},
		{"account 0042, card 12345678", "account zero zero four two card one two three four five six seven eight"},
		{"5% off, ill-disposed", "five percent off ill disposed"},
		{"I'm fine & you?", "i'm fine and you"},
	} {
		if got := strings.Join(Spoken(c.in), " "); got != c.want {
			t.Errorf("Spoken(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
