/*
 * api.h - export mark of the GNU Radio module's library (libgnuradio-convoy).
 */
#ifndef INCLUDED_CONVOY_GR_API_H
#define INCLUDED_CONVOY_GR_API_H

#include <gnuradio/attributes.h>

#ifdef gnuradio_convoy_EXPORTS
#define CONVOY_GR_API __GR_ATTR_EXPORT
#else
#define CONVOY_GR_API __GR_ATTR_IMPORT
#endif

#endif /* INCLUDED_CONVOY_GR_API_H */
