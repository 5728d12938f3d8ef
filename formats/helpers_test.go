package formats

import (
	"os"

	"github.com/tidwall/gjson"
)

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

func parseJSON(s string) gjson.Result { return gjson.Parse(s) }
