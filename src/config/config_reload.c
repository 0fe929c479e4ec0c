/* config_reload.c: settings that can be reloaded while the program runs,
 * with watchers told of every new version (seed 002's addWatcher).
 *
 * A reload is all or nothing: the new file and environment are read and
 * checked completely before anything in force changes. */
#include <string.h>

#include "config.h"

/* Lookup and first load; on error the defaults and no path, no watchers. */
ct_status ct_config_holder_init(struct ct_config_holder *h,
				const char *explicit_path,
				struct ct_error *err)
{
	ct_status st;

	memset(h, 0, sizeof(*h));
	ct_settings_default(&h->settings);
	st = ct_config_load(explicit_path, &h->settings, h->path,
			    sizeof(h->path), err);
	if (st != CT_OK) {
		ct_settings_default(&h->settings);
		h->path[0] = '\0';
	}
	return st;
}

/* Appends to the fixed watcher array. */
ct_status ct_config_add_watcher(struct ct_config_holder *h,
				ct_config_watcher_fn fn, void *ud,
				struct ct_error *err)
{
	if (!fn)
		return ct_error_set(err, CT_EINVAL, "config watcher: NULL function");
	if (h->n_watchers == CT_CONFIG_MAX_WATCHERS)
		return ct_error_set(err, CT_EFULL,
				    "config watcher: at most %d watchers",
				    CT_CONFIG_MAX_WATCHERS);
	h->watchers[h->n_watchers].fn = fn;
	h->watchers[h->n_watchers].ud = ud;
	h->n_watchers++;
	return CT_OK;
}

/* Load into a scratch copy; swap and notify only when all of it is good. */
ct_status ct_config_reload(struct ct_config_holder *h, struct ct_error *err)
{
	struct ct_settings next;
	ct_status st = ct_config_load_file(h->path[0] ? h->path : NULL, &next,
					   err);

	if (st != CT_OK)
		return st;
	h->settings = next;
	for (size_t i = 0; i < h->n_watchers; i++)
		h->watchers[i].fn(&h->settings, h->watchers[i].ud);
	return CT_OK;
}
