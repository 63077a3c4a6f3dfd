"""A corpus written for the tests: several examples of every HIPAA Safe Harbor identifier kind
that occurs in text, in running clinical prose, with exact gold offsets and each span's kind
(issue G, item 6). All names, numbers and places are invented. ``DISTRACTORS`` holds what
looks like PHI and is not (doses, ranges, pain scores, blood pressures, eponyms, ages under
90), which the fixed-shape templates must leave alone."""
from __future__ import annotations

from itdeid.document import Document, Span

#: Kinds a template cannot find by shape: a model has to learn them.
LEARNED = {"name", "city", "hospital"}

#: Notes as pieces: plain text, or (text, class, HIPAA kind).
NOTES = [
    ["Patient ", ("Marta Kowalczyk", "PATIENT", "name"), " , MRN: ", ("004417392", "ID", "medical record number"),
     " , seen ", ("03/14/2021", "DATE", "date"), " by Dr. ", ("Anil Okonkwo-Reyes", "DOCTOR", "name"),
     " . Email ", ("m.kowalczyk@example.org", "ID", "email"), " or call ", ("(617) 555-0143", "PHONE", "phone"),
     " ext ", ("2210", "PHONE", "phone extension"), " . Fax ", ("617.555.0199", "PHONE", "phone or fax"),
     " . Lives at ", ("42 Linden Street", "LOCATION", "street address"), " , ",
     ("Brookline", "LOCATION", "city"), " , MA ", ("02446", "LOCATION", "zip code"),
     " . Portal https://", ("portal.example-health.org/u/8812", "ID", "url"), " .\n"],
    ["Mr. ", ("Yusuf Haddad", "PATIENT", "name"), " is a ", ("94", "AGE", "age over 89"),
     "-year-old man admitted ", ("June 3, 2020", "DATE", "date"), " . SSN ", ("123-45-6789", "ID", "ssn"),
     " . Medicare number: ", ("1EG4TE5MK73", "ID", "health plan number"), " . Policy # ",
     ("XJ44718209", "ID", "health plan number"), " . Account number ", ("88120931", "ID", "account number"),
     " . Pacemaker serial number ", ("PJN204517S", "ID", "device identifier"), " . Home ",
     ("31 Birch Lane", "LOCATION", "street address"), " in ", ("Norfolk County", "LOCATION", "county"),
     " . Workstation ", ("10.21.4.117", "ID", "ip address"), " .\n"],
    ["Daughter ", ("Siobhan", "PATIENT", "name"), " drove him in ( license plate ", ("7KLM294", "ID", "vehicle identifier"),
     " , VIN ", ("1HGCM82633A004352", "ID", "vehicle identifier"), " ) on ", ("12 Oct 2019", "DATE", "date"),
     " . Her cell ", ("508-555-0178", "PHONE", "phone or fax"), " , pager x", ("4-5521", "PHONE", "phone extension"),
     " . He is ", ("97", "AGE", "age over 89"), " yo , aged ", ("101", "AGE", "age over 89"),
     " by his own count . Prior MI in CA'", ("88", "DATE", "date"), " . Licence no. ",
     ("MD-449120", "ID", "certificate or licence number"), " for Dr. ", ("Brennan", "DOCTOR", "name"),
     " . Zip code ", ("01890-2231", "LOCATION", "zip code"), " . Lot number ",
     ("A77C19-2", "ID", "device identifier"), " . Seen at ", ("St. Ives Infirmary", "HOSPITAL", "hospital"),
     " on ", ("2019-10-14", "DATE", "date"), " .\n"],
    ["Contact: ", ("j.haddad@mail.example.com", "ID", "email"), " , ", ("www.haddad-family.example.net", "ID", "url"),
     " , P.O. Box ", ("4471", "LOCATION", "street address"), " . DEA ", ("BH1234563", "ID", "certificate or licence number"),
     " . Encounter # ", ("E20211104-77", "ID", "account number"), " . Tel ", ("+1 415 555 0120", "PHONE", "phone"),
     " ; son can be reached at ", ("202 2671093", "PHONE", "phone"), " or ", ("(617) 5550143", "PHONE", "phone"),
     " . Visit ", ("Dec 5", "DATE", "date"), " and ", ("5 May 2021", "DATE", "date"), " .\n"],
    ["Social security number: ", ("078 05 1120", "ID", "ssn"), " ; chart no. ", ("KX-20391", "ID", "medical record number"),
     " ; remote access from ", ("fe80:0:0:0:202:b3ff:fe1e:8329", "ID", "ip address"), " and ",
     ("192.168.14.3", "ID", "ip address"), " ; family in ", ("Essex County", "LOCATION", "county"), " .\n"],
    ["Age: ", ("104", "AGE", "age over 89"), ". Pt aged ", ("90", "AGE", "age over 89"), ". She is ",
     ("ninety-three", "AGE", "age over 89"), " years old, her sister aged ", ("one hundred and two", "AGE", "age over 89"),
     ". Call ", ("+44 20 7946 0958", "PHONE", "phone"), " from abroad. Host ",
     ("2001:db8:85a3::8a2e:370:7334", "ID", "ip address"), ", adapter ", ("00:1A:2B:3C:4D:5E", "ID", "device identifier"),
     ".\n"],
    # ages over 89 and an SSN as nurses write them, an address in capitals (a black-box test)
    ["She is ", ("93", "AGE", "age over 89"), " and remains independent. Pt is ", ("92", "AGE", "age over 89"),
     ". Age ", ("102", "AGE", "age over 89"), "yrs. A ", ("93", "AGE", "age over 89"), "-y.o. woman, ",
     ("95", "AGE", "age over 89"), " yoF. He just turned ", ("91", "AGE", "age over 89"), " last wk. She turned ",
     ("ninety-one", "AGE", "age over 89"), " today. SS# ",
     ("123 45 6789", "ID", "ssn"), " . ADDRESS: ", ("45 OAK HILL RD", "LOCATION", "street address"), " .\n"],
    ["Discharge plans were reviewed with the patient .\n", ("JRH", "DOCTOR", "dictation initials"),
     "/mkt  Dictated , not read .\nCopied to the chart .\n", ("TB", "DOCTOR", "dictation initials"), "/rcp\n"],
    # typographic look-alikes of '-', '/' and ' ' from pasted text (itdeid.lookalikes)
    ["Seen ", ("03\u221514\u22152019", "DATE", "date"), " and again ", ("2019\u201003\u201014", "DATE", "date"),
     " . SSN ", ("123\u201345\u20136789", "ID", "ssn"), " . Call ", ("617\u2011555\u20110143", "PHONE", "phone"),
     " . Fax ", ("(617)\u00a0555\u20130199", "PHONE", "phone or fax"), " . Seen ",
     ("03/\u200b14/2019", "DATE", "date"), " , MRN ", ("0044\u00ad17392", "ID", "medical record number"), " .\n"],
    # a web address without 'http' or 'www' (a name in its path), phones spelled with letters
    ["Profile at ", ("linkedin.com/in/mkowalczyk", "ID", "url"), " ; daughter's hotline ",
     ("617-555-HELP", "PHONE", "phone"), " or ", ("1-800-FLOWERS", "PHONE", "phone"), " .\n"],
    # names in their own script, which a model trained on English notes cannot read
    ["Interpreter present for ", ("\u738b\u4f1f", "PATIENT", "name in a script without letter case"),
     " ; his wife ", ("\u674e\u5a1c", "PATIENT", "name in a script without letter case"),
     " and son ", ("\uae40\ubbfc\uc218", "PATIENT", "name in a script without letter case"),
     " signed the consent ; name reading ", ("\uff94\uff8f\uff80\uff9e \uff8a\uff85\uff7a", "PATIENT",
                                              "name in a script without letter case"), " .\n"],
    # ages over 89 in lists and in words before 'yo'/'y/o', after 'turned' or a relative (a black-box test)
    ["Ages: pt ", ("91", "AGE", "age over 89"), ", spouse ", ("93", "AGE", "age over 89"), " . Couple, age ",
     ("91", "AGE", "age over 89"), "/", ("93", "AGE", "age over 89"), " , ages 88, ", ("90", "AGE", "age over 89"),
     " and ", ("96", "AGE", "age over 89"), " . A ", ("ninety one", "AGE", "age over 89"), " yo woman, her ",
     ("ninety-two", "AGE", "age over 89"), " y/o sister, brother ", ("one hundred and fifteen", "AGE", "age over 89"),
     " yrs old . Mother turned ", ("ninety-eight", "AGE", "age over 89"), " this week ; wife is ",
     ("94", "AGE", "age over 89"), " . Seen at ", ("97", "AGE", "age over 89"), " years of age .\n"],
    # an age over 89 with the sex letter glued on, where the context makes it an age (a black-box test)
    [("92", "AGE", "age over 89"), "F with PMH of CHF , from her NH .\nPt is a ", ("91", "AGE", "age over 89"),
     "M admitted with CP . This ", ("93", "AGE", "age over 89"), " F presents with SOB . She is a ",
     ("95", "AGE", "age over 89"), "F w/ AF . This ", ("90", "AGE", "age over 89"), "M , retired , lives alone .\n"],
    # a month and day with a hyphen after an admission or discharge word (a black-box test)
    ["ADMIT ", ("3-14", "DATE", "date"), " via ED . Admitted ", ("3-14", "DATE", "date"), " to MICU ; DOA ",
     ("3-14", "DATE", "date"), " . Discharged ", ("12-2", "DATE", "date"), " home with VNA , readmitted on ",
     ("12-19", "DATE", "date"), ".\nDate of admission: ", ("1-05", "DATE", "date"), "\n"],
    # a day as an ordinal after 'on the', an age at a relative's death, an extension alone (the
    # held-out letters' misses)
    ["Repeat cultures on the ", ("9th", "DATE", "date"), " and ", ("10th", "DATE", "date"),
     " were negative ; G-CSF was started on the ", ("12th", "DATE", "date"), " and ANC recovered . She asks "
     "whether it's the ", ("14th", "DATE", "date"), ".\nFH: mother died at ", ("96", "AGE", "age over 89"),
     " , father passed away at age ", ("92", "AGE", "age over 89"), " . Reach me directly at ",
     ("x5543", "PHONE", "phone extension"), " or call ", ("x4410", "PHONE", "phone extension"), " .\n"],
    # a two-digit year with the apostrophe after it (PhysioNet's gold marks them: session 33)
    ["PMH: L LUNG CA S/P L LUNG RESECTION ", ("62", "DATE", "date"), "'. STOPPED SMOKING ",
     ("71", "DATE", "date"), "'. HOB 30' , OOB x 20' , 5'10\" tall . S/P AVR ", ("8/88", "DATE", "date"),
     " and CABG ", ("1/78", "DATE", "date"), " , PS 10/40% .\n"],
    # a two-digit year after a diagnosis or a procedure, a decade (PhysioNet's gold marks them: session 38)
    ["PMH MI ", ("92", "DATE", "date"), ", 3 VCABG C MVR . PMHX CVA in ", ("94", "DATE", "date"),
     " , L sided weakness . PMH: CAD: NQWMI ", ("13", "DATE", "date"), ". HTN . POSSIBLE MI IN ",
     ("1980S", "DATE", "date"), " AFTER OPEN CHOLE .\n"],
    # a hospital pager's four to six digits (PhysioNet's gold types them PHONE: session 33)
    ["Call with questions , Pager # ", ("54321", "PHONE", "pager number"), " . Resident on call PG ",
     ("33445", "PHONE", "pager number"), " ; reached at beeper number ", ("55037", "PHONE", "pager number"),
     " . Read pg 2 , 3 of the chart .\n"],
    # a name after a next-of-kin label (a black-box probe of headers, session 28)
    ["NEXT OF KIN: ", ("WANJIRU KAMAU", "PATIENT", "name after a next-of-kin label"), " (MOTHER) ",
     ("617-555-0187", "PHONE", "phone"), "\nEmergency contact: ", ("Dmitri Sokolov", "PATIENT",
                                                                    "name after a next-of-kin label"),
     ", son\nHealth care proxy: ", ("Maria L. Garcia", "PATIENT", "name after a next-of-kin label"), " ",
     ("617-555-0100", "PHONE", "phone"), "\n"],
    # a 'Surname, First' name after a patient label (a black-box study of the surrogates, session 28)
    ["PT: ", ("OYELOWO, BABATUNDE", "PATIENT", "name after a patient label"), "   BED 14\nName: ",
     ("Ramirez, Luz M", "PATIENT", "name after a patient label"), "\nDOB ", ("02/11/1957", "DATE", "date"), "\n"],
]

#: Text with no PHI at all that the templates must not touch.
DISTRACTORS = (
    "Take 2-3 tablets q4-6h prn ; pain 5/10 , then 3/10 . BP 120/80 , HR 88 . Na 140 K 3.9 "
    "Cl 105 HCO3 24 BUN 18 Cr 1.1 . Foley to gravity , Parkinson's disease , Dr. Jones's note may "
    "be late . pH 7.35 / 7.40 . Platelets 150 . Dose 2000 mg daily . A 72-year-old man , 65 yo . "
    "Ferrous sulfate 325 mg tid x 3 months . Dec in urine output . 5'10\" tall . Group B strep . "
    "Model of care reviewed .\nCV/resp: stable .\nGI/gu: soft , BS+ .\nTemp 98.6. Aged 9.5 hours . Seen at 10:30 "
    "and 12:30:45 . Ninety minutes later , +2 edema , O2 sat 95% . I/O +2500 cc , +1200 -300 .\n"
    "Pt is 95% on RA . She was 98.6 this am . Pt is 94 on 2L . 4 MG SQ , 1800 PER DR , 8 TRACH IN PLACE .\n"
    "Ages: pt 88, spouse 85 . Age 45, wt 95 kg . Age 45 / HR 92 . Turned ninety degrees , turned q2h . "
    "Wife is 95% sure . Mother is 92 kg . Ninety one minutes later . 90 years ago . Over 100 yrs of data .\n"
    "98F\nT 98F , temp 99F , Tmax 100.4F , T 101 F . Spiked a 101F with rigors ; pt 101F , given tylenol .\n"
    "101F with chills .\nTemp was 99F , admitted to MICU . Pt 98.6F with no chills . A 100F spike .\n"
    "O2 3-4 L NC , x 3-4 days , BP 120-130 . Admitted 2-3 times this year ; discharged 1-2 days ago . "
    "Admits 3-4 beers a day . D/C 2-3 L . Serous discharge 1-2 cc . On admission 3-4, now 2 L . Admit wt 3-4 kg up .\n"
    "Moved to the 2nd floor on the 3rd day ; ulcers on the 2nd and 3rd toes ; this is the 4th time . "
    "Died at 96 kg ? No : weight 96 kg at death . Vanc x1000 , PRBC x2 , call x2 RN .\n"
    "Next of kin: wife\nNOK: SELF\nGUARDIAN: NONE\nHealth care proxy: daughter, see chart\n"
    "PT: ALERT, ORIENTED X3\nPatient: awake, calm\nPT: LETHARGIC, CONFUSED, MAE\n"
    "I/O 150 1500000 , WBC 12 1000000 , counts 200 1500000.5 .\n"
    "MI 2 days ago , s/p CABG 25 years ago , CVA 12 hours , AVR 21 mm valve , stent 90% , CABG x3 .\n")


def _note(pieces, number: int) -> tuple[Document, dict]:
    text, spans, kinds = "", [], {}
    for piece in pieces:
        if isinstance(piece, str):
            text += piece
            continue
        value, cls, kind = piece
        span = Span(len(text), len(text) + len(value), cls)
        spans.append(span)
        kinds[span] = kind
        text += value
    return Document(f"hipaa-{number}", text, spans, patient=f"hp{number}"), kinds


def hipaa_corpus() -> tuple[list[Document], dict]:
    """The notes, and per note id a {span: HIPAA kind} map."""
    docs, kinds = [], {}
    for number, pieces in enumerate(NOTES, start=1):
        doc, k = _note(pieces, number)
        docs.append(doc)
        kinds[doc.id] = k
    return docs, kinds
