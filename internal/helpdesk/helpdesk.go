// Package helpdesk is the declarations of a small help-desk runtime: the runtime the
// cordiskit package's example embeds cordiskit in, as the README's "Embedding cordiskit
// in your runtime" shows. It declares one tool in Go; gen-cordis-api catalogues it in
// cordisapi.
package helpdesk

//go:generate go run ../../cmd/gen-cordis-api -out ./cordisapi -facade .

import "github.com/cordiskit/cordiskit/kit"

// OpenTicket files a ticket for the user's problem and returns its number. Call it once
// per problem, with the user's own words as the subject.
var OpenTicket = kit.NewTool[Ticket, TicketNumber]("open_ticket")

// Ticket is a problem the user reports.
type Ticket struct {
	// Subject says in one line what is wrong.
	Subject string `json:"subject"`
}

// TicketNumber is the number of a filed ticket.
type TicketNumber struct {
	// Number is the ticket's number, from 1.
	Number int `json:"number"`
}
