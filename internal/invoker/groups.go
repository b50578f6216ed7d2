package invoker

import (
	"os/user"
	"strconv"
)

// Groups returns inv's groups as the system's user database has them, its
// primary group first, or only its primary group for a user the database
// does not know. Whatever acts as the user takes exactly these: root's own
// groups must not remain, or a file readable by a group of root's would be
// readable too.
func (inv Invoker) Groups() []int {
	groups := []int{inv.GID}
	u, err := user.LookupId(strconv.Itoa(inv.UID))
	if err != nil {
		return groups
	}
	ids, err := u.GroupIds()
	if err != nil {
		return groups
	}
	for _, s := range ids {
		if g, err := strconv.Atoi(s); err == nil && g != inv.GID {
			groups = append(groups, g)
		}
	}
	return groups
}
